import Foundation
import JSON
import Storage
import Web

/// The iOS API's two busiest answers, serialised straight to bytes, members sorted by name, without `JSONEncoder`
/// or `uuidString`'s `snprintf` per byte (BENCHMARKS.md has the profile). UUIDs are written in lower
/// case, as RFC 9562 §4 asks of output and as the database keeps them, so an id from an answer names its row.
extension UsersController.SignInResponse {
    func encodeResponse(for request: Request) throws -> Response {
        UsersController.json([
            "id": .string(id.text(uppercase: false)),
            "user": .object(["id": .string(user.id.text(uppercase: false))]),
            "value": .string(value),
        ])
    }
}

extension UsersController.MeResponse {
    func encodeResponse(for request: Request) throws -> Response {
        UsersController.json([
            "email": .string(email),
            "id": .string(id.text(uppercase: false)),
            "isPrivateEmail": .bool(isPrivateEmail),
            "name": .string(name),
            "username": .string(username),
        ])
    }
}

extension UsersController.SignInRequest {
    /// The sign-in body, read with the strict parser of the JSON module instead of `JSONDecoder` (BENCHMARKS.md has
    /// the profile) when it is a JSON object whose known members have the expected types and unique names, so the
    /// result is the one `req.content.decode` gives; every other body (repeated names, of which the last counts;
    /// other media types; fields of the wrong type) goes through `req.content.decode`, with its status and reason.
    static func decode(from req: Request) throws -> Self {
        try req.content.checkBodyFields()
        if req.content.isJSON, let members = try? JSONValue.parseObjectMembers(req.body),
           let body = Self(members: members) {
            return body
        }
        return try req.content.decode(Self.self, accepting: .json)
    }

    /// The body from an object's members; nil when `token` is not a string or another field is neither a
    /// string nor null. Unknown members are ignored, as `JSONDecoder` ignores them.
    init?(members: [JSONMember]) {
        var token: String?
        var name: String?
        var nonce: String?
        var authorizationCode: String?
        for member in members {
            switch member.name {
            case "token":
                guard case .string(let value) = member.value else { return nil }
                token = value
            case "name":
                guard let value = Self.optionalString(member.value) else { return nil }
                name = value
            case "nonce":
                guard let value = Self.optionalString(member.value) else { return nil }
                nonce = value
            case "authorizationCode":
                guard let value = Self.optionalString(member.value) else { return nil }
                authorizationCode = value
            default:
                continue
            }
        }
        guard let token else { return nil }
        self.init(token: token, name: name, nonce: nonce, authorizationCode: authorizationCode)
    }

    /// `.some(nil)` for null, `.some(string)` for a string, nil for any other value.
    private static func optionalString(_ value: JSONValue) -> String?? {
        switch value {
        case .null: .some(nil)
        case .string(let string): .some(string)
        default: nil
        }
    }
}

extension UsersController {
    /// An object answer; `members` sorted by name, as `Response.json` sorts them. Both answers carry a credential
    /// or a person's data, which no cache may keep (`no-store`, RFC 6749 §5.1, RFC 9111 §5.2.2.5).
    static func json(_ members: KeyValuePairs<String, JSONValue>) -> Response {
        Response(status: .ok, headers: ["Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store"],
                 body: .bytes(JSONValue.serializedObject(members)))
    }
}
