import COpenSSL

/// An RSA public key that verifies RSASSA-PKCS1-v1_5 SHA-256 signatures (RS256, RFC 7518 §3.3).
///
/// Build once and reuse: the key is immutable and each verification uses its own contexts.
package struct RSAPublicKey: Sendable {
    /// Smallest modulus accepted (RFC 7518 §3.3: "2048 bits or larger MUST be used").
    package static let minimumModulusBits = 2048
    /// Largest modulus accepted; bigger keys only cost verification time.
    package static let maximumModulusBits = 8192
    /// Longest public exponent accepted, in bytes.
    package static let maximumExponentBytes = 32

    let key: EVPKey
    private let verifier: VerificationContext

    /// Builds a key from its modulus and public exponent as unsigned big-endian bytes.
    /// - Throws: ``CryptoKeyError`` when the modulus is under 2048 or over 8192 bits, even, or
    ///   carries the ROCA fingerprint, or the exponent is even, below 3, or longer than 32 bytes.
    package init(modulus: [UInt8], exponent: [UInt8]) throws {
        let n = Array(modulus.drop(while: { $0 == 0 }))
        let e = Array(exponent.drop(while: { $0 == 0 }))
        let bits = n.isEmpty ? 0 : (n.count - 1) * 8 + (8 - n[0].leadingZeroBitCount)
        guard bits >= Self.minimumModulusBits else { throw CryptoKeyError(.modulusTooSmall) }
        guard bits <= Self.maximumModulusBits else { throw CryptoKeyError(.modulusTooLarge) }
        guard n[n.count - 1] & 1 == 1 else { throw CryptoKeyError(.invalidEncoding) }
        guard !Self.hasROCAFingerprint(modulus: n) else { throw CryptoKeyError(.weakModulus) }
        guard let last = e.last, last & 1 == 1, e.count <= Self.maximumExponentBytes, e.count > 1 || e[0] >= 3
        else { throw CryptoKeyError(.invalidExponent) }
        let key = try EVPKey.fromData(algorithm: "RSA", selection: copenssl_selection_public_key()) { builder in
            try builder.push("n", unsignedBigEndian: n)
            try builder.push("e", unsignedBigEndian: e)
        }
        self.key = key
        verifier = try VerificationContext(key: key) { EVP_PKEY_CTX_set_rsa_padding($0, RSA_PKCS1_PADDING) }
    }

    /// The modulus size in bits.
    package var modulusBits: Int { key.bits }

    /// The modulus `n`, unsigned big-endian without leading zeros.
    package var modulus: [UInt8] { (try? key.bigNumberParameter("n")) ?? [] }

    /// The public exponent `e`, unsigned big-endian without leading zeros.
    package var exponent: [UInt8] { (try? key.bigNumberParameter("e")) ?? [] }

    /// Whether `signature` is a valid RSASSA-PKCS1-v1_5 SHA-256 signature of `message`
    /// (RFC 8017 §8.2.2). The signature must be exactly as long as the modulus.
    package func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard signature.count == (modulusBits + 7) / 8 else { return false }
        return verifier.verify(signature: signature, message: message)
    }
}
