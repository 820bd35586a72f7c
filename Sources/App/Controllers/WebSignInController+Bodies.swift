import Foundation
import JSON
import Web

/// What the browser brings back from Apple, in each of the web flow's shapes.
extension WebSignInController {
    /// Apple's `form_post` to the redirect URI.
    struct CallbackForm: Decodable, Sendable {
        var state: String?
        var code: String?
        var id_token: String?
        var user: String?
        var error: String?
    }

    /// The `user` Apple gives on a first sign-in: a JSON string in the `form_post`, an object from the popup.
    struct AppleUser: Decodable, Sendable {
        struct Name: Decodable, Sendable {
            var firstName: String?
            var lastName: String?
        }
        var name: Name?
        var email: String?

        /// The name as the sign-in stores it (the email is never taken from here, only from the token).
        var personName: PersonName { PersonName(firstName: name?.firstName ?? "", lastName: name?.lastName ?? "") }

        /// The `form_post` field: strict JSON (RFC 8259, `JSONValue`) of this shape, or 400.
        static func parse(formField json: String?) throws -> AppleUser {
            guard let json, !json.isEmpty else { return AppleUser() }
            guard let text = try? JSONValue.decoderInput(Array(json.utf8)),
                  let decoded = try? JSONDecoder().decode(AppleUser.self, from: Data(text)) else {
                throw Abort(.badRequest, reason: "Field 'user' is not the JSON Apple sends")
            }
            return decoded
        }
    }

    /// What `siwaHandler` renders into hidden fields (HTML-escaped by the template).
    struct HandlerContext: Sendable {
        var token, code, email, firstName, lastName: String
        /// The nonce the page's inline script carries (`PageScripts`).
        var scriptNonce: String
        var currentUser: CurrentUserContext?
        /// Set when the hand-off could not finish for now: the page then says why and offers to post it again
        /// (no script submits it).
        var isRetry = false
        var retryReason = ""
    }

    /// What the hand-off page posts. Its `email` field is not read: the email comes only from the verified token.
    struct HandleForm: Decodable, Sendable {
        var token: String
        var code: String?
        var firstName: String?
        var lastName: String?
    }

    /// What the popup page's script posts: `AppleID.auth.signIn()`'s result, `{authorization: {code, id_token,
    /// state}, user?}`, flattened. `user` is Apple's object, or the JSON string the `form_post` carries.
    struct PopupBody: Decodable, Sendable {
        var id_token: String
        var state: String
        var code: String?
        var user: AppleUser?
    }
}

extension WebSignInController.AppleUser {
    private enum CodingKeys: String, CodingKey { case name, email }

    /// Apple's object, or the same as a JSON string (the `form_post`'s shape, which a page may pass on as it is).
    init(from decoder: any Decoder) throws {
        if let json = try? decoder.singleValueContainer().decode(String.self) {
            self = try Self.parse(formField: json)
            return
        }
        let container: KeyedDecodingContainer<CodingKeys>
        do {
            container = try decoder.container(keyedBy: CodingKeys.self)
        } catch DecodingError.typeMismatch {
            throw Abort(.badRequest, reason: "Field 'user' must be an object or the JSON string of one")
        }
        self.init(name: try container.decodeIfPresent(Name.self, forKey: .name),
                  email: try container.decodeIfPresent(String.self, forKey: .email))
    }
}
