import CryptoCore

/// Apple's RSA keys from the JWKS cache verify identity tokens: an unknown `kid` is 401, no keys at all 503.
extension JWKSCache: SigningKeyProvider where Key == RSAPublicKey {
    package func rsaKey(for kid: String) async throws -> RSAPublicKey {
        do {
            return try await key(for: kid)
        } catch let error as JWKSCacheError {
            throw error.reason == .keysUnavailable ? AppleIDError.keysUnavailable : AppleIDError.unknownKeyID
        }
    }
}
