import Foundation
import JOSE

/// An Apple-signed JWT whose signature, issuer, audience and times have been checked; what
/// ``IdentityTokenVerifier/verifyJWT(_:requireExpiration:)`` returns for any Apple JWT
/// (identity tokens, server-to-server notifications).
public struct VerifiedJWT: Sendable, Equatable {
    /// The protected header.
    public var header: JOSEHeader
    /// Every claim, as received.
    public var claims: [String: JSONValue]
    /// The expected client id that `aud` matched.
    public var audience: String
    /// `iat`.
    public var issuedAt: Date
    /// `exp`, when present.
    public var expiresAt: Date?
}
