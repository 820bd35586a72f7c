import CryptoCore
import JOSE
import JSON

/// Where the verifier gets Apple's RS256 keys. The JWKS cache conforms; tests use
/// ``FixedSigningKeys``.
package protocol SigningKeyProvider: Sendable {
    /// The key named `kid`.
    /// - Throws: ``AppleIDError/unknownKeyID`` when no key has that id, or
    ///   ``AppleIDError/keysUnavailable`` when keys cannot be had at all.
    func rsaKey(for kid: String) async throws -> RSAPublicKey
}

/// A fixed set of RS256 keys by `kid`: for tests, and for the local Apple stand-in.
package struct FixedSigningKeys: SigningKeyProvider {
    package let keys: [String: RSAPublicKey]

    package init(_ keys: [String: RSAPublicKey]) { self.keys = keys }

    /// The RSA keys of `set` usable for RS256; a `kid` appearing twice is left out (ambiguous).
    package init(_ set: JWKSet) {
        var keys: [String: RSAPublicKey] = [:]
        for jwk in set.keys {
            guard let kid = jwk.keyID, set.key(withID: kid) != nil, jwk.permits(.rs256),
                  let key = try? RSAPublicKey(jwk: jwk)
            else { continue }
            keys[kid] = key
        }
        self.keys = keys
    }

    package func rsaKey(for kid: String) async throws -> RSAPublicKey {
        guard let key = keys[kid] else { throw AppleIDError.unknownKeyID }
        return key
    }
}
