import Foundation
import JOSE
import Storage
import Web

/// The iOS API's two busiest answers, serialised straight to bytes: the same JSON `Response.json` gives (members
/// sorted by name, UUIDs upper-case as `uuidString` writes them) without `JSONEncoder`, which took 9% of a
/// `GET /api/users/me` in the profile, nor `uuidString`'s `snprintf` per byte.
extension UsersController.SignInResponse {
    func encodeResponse(for request: Request) throws -> Response {
        UsersController.json(.object([
            "id": .string(id.text(uppercase: true)),
            "user": .object(["id": .string(user.id.text(uppercase: true))]),
            "value": .string(value),
        ]))
    }
}

extension UsersController.MeResponse {
    func encodeResponse(for request: Request) throws -> Response {
        UsersController.json(.object([
            "email": .string(email),
            "id": .string(id.text(uppercase: true)),
            "isPrivateEmail": .bool(isPrivateEmail),
            "name": .string(name),
            "username": .string(username),
        ]))
    }
}

extension UsersController {
    static func json(_ value: JSONValue) -> Response {
        Response(status: .ok, headers: ["Content-Type": "application/json; charset=utf-8"], body: .bytes(value.serialized()))
    }
}
