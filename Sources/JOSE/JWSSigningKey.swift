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
