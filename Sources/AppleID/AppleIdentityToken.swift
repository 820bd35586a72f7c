import Foundation
import JSON

/// A verified Sign in with Apple identity token (Apple's "Authenticating users with Sign in
/// with Apple", identity token claims).
package struct AppleIdentityToken: Sendable, Equatable {
    /// `sub`: the stable user identifier, unique per team.
    package var sub: String
    /// `email`: real or private-relay address; Apple may omit it after the first sign-in.
    package var email: String?
    /// `email_verified` ("true"/"false" or a boolean in the token).
    package var emailVerified: Bool?
    /// `is_private_email`: whether `email` is a private-relay address.
    package var isPrivateEmail: Bool?
    /// The expected client id that `aud` matched.
    package var audience: String
    /// `iat`.
    package var issuedAt: Date
    /// `exp`.
    package var expiresAt: Date
    /// `nonce`, as in the token (raw or SHA-256 hex, as the client sent it).
    package var nonce: String?
    /// `nonce_supported`.
    package var nonceSupported: Bool?
    /// `real_user_status`: 0 unsupported, 1 unknown, 2 likely real; other values are kept as is.
    package var realUserStatus: Int?
    /// `auth_time`.
    package var authTime: Date?
    /// `at_hash`.
    package var atHash: String?
    /// `c_hash`.
    package var cHash: String?
    /// Every claim, in document order.
    package var claimMembers: [JSONMember]
    /// Every claim, as received.
    package var claims: [String: JSONValue] { claimMembers.dictionary }

    /// `transfer_sub`: the transfer identifier of a user whose app moved to this team from another, present for 60 days
    /// after the transfer (Apple's "Bringing new apps and users into your team"); nil when absent or not a string.
    package var transferSub: String? {
        guard let value = claimMembers.first(where: { $0.name == "transfer_sub" })?.value.storableString,
              !value.isEmpty
        else { return nil }
        return value
    }

    /// Whether Apple judged the user likely real (`real_user_status` 2).
    package var isLikelyReal: Bool { realUserStatus == 2 }
}
