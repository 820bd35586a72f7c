import CryptoCore

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
