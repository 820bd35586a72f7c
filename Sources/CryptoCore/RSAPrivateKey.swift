import COpenSSL

/// An RSA private key that signs with RSASSA-PKCS1-v1_5 SHA-256 (RS256, RFC 7518 §3.3).
///
/// The server itself never needs one: the local Apple stand-in (`siwa fake-apple`) signs its
/// identity tokens with it, and tests mint tokens with it.
package struct RSAPrivateKey: Sendable {
    let key: EVPKey

    /// Generates a fresh key with public exponent 65537.
    /// - Parameter bits: modulus size; at least ``RSAPublicKey/minimumModulusBits``.
    package static func generate(bits: Int = 2048) throws -> RSAPrivateKey {
        guard bits >= RSAPublicKey.minimumModulusBits else { throw CryptoKeyError(.modulusTooSmall) }
        guard bits <= RSAPublicKey.maximumModulusBits else { throw CryptoKeyError(.modulusTooLarge) }
        let key = try EVPKey.generate(algorithm: "RSA") { ctx in
            try check(EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, Int32(bits)), "EVP_PKEY_CTX_set_rsa_keygen_bits")
        }
        return RSAPrivateKey(key: key)
    }

    /// Loads an unencrypted PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`) RSA key.
    /// - Throws: ``CryptoKeyError`` if it is not PEM, not RSA, or smaller than 2048 bits.
    package init(pem: String) throws {
        let key = try EVPKey.privateKey(pem: Array(pem.utf8), algorithm: "RSA")
        guard key.bits >= RSAPublicKey.minimumModulusBits else { throw CryptoKeyError(.modulusTooSmall) }
        guard key.bits <= RSAPublicKey.maximumModulusBits else { throw CryptoKeyError(.modulusTooLarge) }
        self.key = key
    }

    init(key: EVPKey) { self.key = key }

    /// The key as unencrypted PKCS#8 PEM; write it only to files readable by the owner.
    package func pemRepresentation() throws -> String { try key.privateKeyPEM() }

    /// The matching public key.
    package var publicKey: RSAPublicKey {
        get throws {
            try RSAPublicKey(modulus: key.bigNumberParameter("n"), exponent: key.bigNumberParameter("e"))
        }
    }

    /// The RSASSA-PKCS1-v1_5 SHA-256 signature of `message` (RFC 8017 §8.2.1).
    package func signature(for message: [UInt8]) throws -> [UInt8] {
        try DigestContext().signSHA256(message: message, key: key) {
            EVP_PKEY_CTX_set_rsa_padding($0, RSA_PKCS1_PADDING)
        }
    }
}
