import Foundation
import JOSE
import JSON

/// An Apple-signed JWT whose signature, issuer, audience and times have been checked; what
/// ``IdentityTokenVerifier/verifyJWT(_:requireExpiration:)`` returns for any Apple JWT
/// (identity tokens, server-to-server notifications).
package struct VerifiedJWT: Sendable, Equatable {
    package static func == (lhs: VerifiedJWT, rhs: VerifiedJWT) -> Bool {
        lhs.header == rhs.header && lhs.claims == rhs.claims && lhs.audience == rhs.audience
            && lhs.issuedAt == rhs.issuedAt && lhs.expiresAt == rhs.expiresAt
    }

    /// The protected header.
    package var header: JOSEHeader
    /// Every claim, in document order.
    package var claimMembers: [JSONMember]
    /// Every claim, as received.
    package var claims: [String: JSONValue] { claimMembers.dictionary }
    /// The expected client id that `aud` matched.
    package var audience: String
    /// `iat`.
    package var issuedAt: Date
    /// `exp`, when present.
    package var expiresAt: Date?
}
