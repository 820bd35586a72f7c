import Foundation
import JSON

/// A verified Sign in with Apple identity token (Apple's "Authenticating users with Sign in
/// with Apple", identity token claims).
public struct AppleIdentityToken: Sendable, Equatable {
    /// `sub`: the stable user identifier, unique per team.
    public var sub: String
    /// `email`: real or private-relay address; Apple may omit it after the first sign-in.
    public var email: String?
    /// `email_verified` ("true"/"false" or a boolean in the token).
    public var emailVerified: Bool?
    /// `is_private_email`: whether `email` is a private-relay address.
    public var isPrivateEmail: Bool?
    /// The expected client id that `aud` matched.
    public var audience: String
    /// `iat`.
    public var issuedAt: Date
    /// `exp`.
    public var expiresAt: Date
    /// `nonce`, as in the token (raw or SHA-256 hex, as the client sent it).
    public var nonce: String?
    /// `nonce_supported`.
    public var nonceSupported: Bool?
    /// `real_user_status`: 0 unsupported, 1 unknown, 2 likely real; other values are kept as is.
    public var realUserStatus: Int?
    /// `auth_time`.
    public var authTime: Date?
    /// `at_hash`.
    public var atHash: String?
    /// `c_hash`.
    public var cHash: String?
    /// Every claim, in document order.
    package var claimMembers: [JSONMember]
    /// Every claim, as received.
    public var claims: [String: JSONValue] { claimMembers.dictionary }

    /// `transfer_sub`: the transfer identifier of a user whose app moved to this team from another, present for 60 days
    /// after the transfer (Apple's "Bringing new apps and users into your team"); nil when absent or not a string.
    public var transferSub: String? {
        guard case .string(let value)? = claimMembers.first(where: { $0.name == "transfer_sub" })?.value,
              !value.isEmpty
        else { return nil }
        return value
    }

    /// Whether Apple judged the user likely real (`real_user_status` 2).
    public var isLikelyReal: Bool { realUserStatus == 2 }
}
