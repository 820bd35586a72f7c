import COpenSSL

/// A P-256 private key that signs with ECDSA SHA-256 (ES256, RFC 7518 §3.4).
///
/// This is the kind of key Apple issues for Sign in with Apple (a PKCS#8 `.p8` file); the
/// server signs its client secret with it (Apple's "Creating a client secret").
package struct ES256PrivateKey: Sendable {
    let key: EVPKey

    /// Generates a fresh P-256 key.
    package static func generate() throws -> ES256PrivateKey {
        let key = try EVPKey.generate(algorithm: "EC") { ctx in
            try check(EVP_PKEY_CTX_set_group_name(ctx, "P-256"), "EVP_PKEY_CTX_set_group_name")
        }
        return ES256PrivateKey(key: key)
    }

    /// Loads a PEM private key, such as the contents of Apple's `AuthKey_XXXXXXXXXX.p8`.
    /// - Throws: ``CryptoKeyError`` if it is not PEM, not EC, or not on P-256.
    package init(pem: String) throws {
        let key = try EVPKey.privateKey(pem: Array(pem.utf8), algorithm: "EC")
        guard key.isP256 else { throw CryptoKeyError(.wrongKeyType) }
        self.key = key
    }

    init(key: EVPKey) { self.key = key }

    /// The key as unencrypted PKCS#8 PEM, the same format as Apple's `.p8`.
    package func pemRepresentation() throws -> String { try key.privateKeyPEM() }

    /// The matching public key.
    package var publicKey: ES256PublicKey {
        get throws { try ES256PublicKey(x: key.coordinate("qx"), y: key.coordinate("qy")) }
    }

    /// The ES256 signature of `message` in JWS form: 64-byte `r || s` (RFC 7518 §3.4).
    package func signature(for message: [UInt8]) throws -> [UInt8] {
        let der = try DigestContext().signSHA256(message: message, key: key)
        guard let raw = ECDSASignature.raw(fromDER: der) else { throw OpenSSLError("ECDSA signature encoding") }
        return raw
    }
}
