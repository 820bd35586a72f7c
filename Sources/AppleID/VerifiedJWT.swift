import Foundation
import JOSE
import JSON

/// An Apple-signed JWT whose signature, issuer, audience and times have been checked; what
/// ``IdentityTokenVerifier/verifyJWT(_:requireExpiration:)`` returns for any Apple JWT
/// (identity tokens, server-to-server notifications).
public struct VerifiedJWT: Sendable, Equatable {
    public static func == (lhs: VerifiedJWT, rhs: VerifiedJWT) -> Bool {
        lhs.header == rhs.header && lhs.claims == rhs.claims && lhs.audience == rhs.audience
            && lhs.issuedAt == rhs.issuedAt && lhs.expiresAt == rhs.expiresAt
    }

    /// The protected header.
    public var header: JOSEHeader
    /// Every claim, in document order.
    package var claimMembers: [JSONMember]
    /// Every claim, as received.
    public var claims: [String: JSONValue] { claimMembers.dictionary }
    /// The expected client id that `aud` matched.
    public var audience: String
    /// `iat`.
    public var issuedAt: Date
    /// `exp`, when present.
    public var expiresAt: Date?
}
