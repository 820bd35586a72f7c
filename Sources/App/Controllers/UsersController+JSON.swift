import Foundation
import JOSE
import Web

/// The iOS API's two busiest answers, serialised straight to bytes: the same JSON `Response.json` gives (members
/// sorted by name, UUIDs upper-case) without `JSONEncoder`, which took 9% of a `GET /api/users/me` in the profile.
extension UsersController.SignInResponse {
    func encodeResponse(for request: Request) throws -> Response {
        UsersController.json(.object([
            "id": .string(id.uuidString),
            "user": .object(["id": .string(user.id.uuidString)]),
            "value": .string(value),
        ]))
    }
}

extension UsersController.MeResponse {
    func encodeResponse(for request: Request) throws -> Response {
        UsersController.json(.object([
            "email": .string(email),
            "id": .string(id.uuidString),
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
