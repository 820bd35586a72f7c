import CryptoCore

/// Where the verifier gets Apple's RS256 keys. The JWKS cache conforms; tests use
/// ``FixedSigningKeys``.
package protocol SigningKeyProvider: Sendable {
    /// The key named `kid`.
    /// - Throws: ``AppleIDError/unknownKeyID`` when no key has that id, or
    ///   ``AppleIDError/keysUnavailable`` when keys cannot be had at all.
    func rsaKey(for kid: String) async throws -> RSAPublicKey
}
