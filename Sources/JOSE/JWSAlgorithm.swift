/// The JWS `alg` values this library implements (RFC 7518 §3.1). Anything else is refused.
package enum JWSAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// RSASSA-PKCS1-v1_5 using SHA-256 (RFC 7518 §3.3); what Apple signs identity tokens with.
    case rs256 = "RS256"
    /// ECDSA using P-256 and SHA-256 (RFC 7518 §3.4); what Apple's `.p8` keys sign with.
    case es256 = "ES256"
}
