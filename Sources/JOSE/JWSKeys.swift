import CryptoCore

/// A private key that signs JWS, tagged with its one algorithm.
package enum JWSSigningKey: Sendable {
    /// RS256: the local Apple stand-in's identity-token key.
    case rs256(RSAPrivateKey)
    /// ES256: Apple's `.p8` key, for the client secret.
    case es256(ES256PrivateKey)

    package var algorithm: JWSAlgorithm {
        switch self {
        case .rs256: .rs256
        case .es256: .es256
        }
    }

    /// The JWS signature of `message` (raw `r || s` for ES256, RFC 7518 §3.4).
    package func signature(for message: [UInt8]) throws -> [UInt8] {
        switch self {
        case .rs256(let key): try key.signature(for: message)
        case .es256(let key): try key.signature(for: message)
        }
    }
}

/// A public key that checks JWS signatures for one algorithm.
package protocol JWSVerifyingKey: Sendable {
    /// The only `alg` this key verifies (RFC 7518 §3.1); one key, one algorithm (RFC 8725 §3.1).
    var jwsAlgorithm: JWSAlgorithm { get }
    /// Whether `signature` is valid for `message` (the JWS signing input).
    func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool
}

extension RSAPublicKey: JWSVerifyingKey {
    package var jwsAlgorithm: JWSAlgorithm { .rs256 }
}

extension ES256PublicKey: JWSVerifyingKey {
    package var jwsAlgorithm: JWSAlgorithm { .es256 }
}

/// The JWS `alg` values this library implements (RFC 7518 §3.1). Anything else is refused.
package enum JWSAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// RSASSA-PKCS1-v1_5 using SHA-256 (RFC 7518 §3.3); what Apple signs identity tokens with.
    case rs256 = "RS256"
    /// ECDSA using P-256 and SHA-256 (RFC 7518 §3.4); what Apple's `.p8` keys sign with.
    case es256 = "ES256"
}
