import COpenSSL

/// A P-256 public key that verifies ECDSA SHA-256 signatures (ES256, RFC 7518 §3.4).
package struct ES256PublicKey: Sendable {
    /// Length of each affine coordinate, in bytes.
    package static let coordinateSize = 32

    let key: EVPKey
    private let verifier: VerificationContext

    /// Builds a key from its affine coordinates, 32 bytes each (RFC 7518 §6.2.1.2).
    /// - Throws: ``CryptoKeyError/Reason/invalidPoint`` when a coordinate has the wrong length or
    ///   the point is not on the curve.
    package init(x: [UInt8], y: [UInt8]) throws {
        guard x.count == Self.coordinateSize, y.count == Self.coordinateSize else {
            throw CryptoKeyError(.invalidPoint)
        }
        do {
            key = try EVPKey.fromData(algorithm: "EC", selection: copenssl_selection_public_key()) { builder in
                try builder.push("group", utf8String: "prime256v1")
                try builder.push("pub", octets: [0x04] + x + y)
            }
        } catch is OpenSSLError {
            throw CryptoKeyError(.invalidPoint)
        }
        verifier = try VerificationContext(key: key)
    }

    /// Reads a SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`) P-256 key.
    package init(pem: String) throws {
        let key = try EVPKey.publicKey(pem: Array(pem.utf8), algorithm: "EC")
        guard key.isP256 else { throw CryptoKeyError(.wrongKeyType) }
        self.key = key
        verifier = try VerificationContext(key: key)
    }

    /// The affine x coordinate, 32 bytes big-endian.
    package var x: [UInt8] { key.coordinate("qx") }

    /// The affine y coordinate, 32 bytes big-endian.
    package var y: [UInt8] { key.coordinate("qy") }

    /// The key as SubjectPublicKeyInfo PEM.
    package func pemRepresentation() throws -> String { try key.publicKeyPEM() }

    /// Whether `signature`, in JWS form (64-byte `r || s`), is valid for `message`.
    /// Signatures of another length, or with r or s outside [1, n - 1], are invalid.
    package func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard let der = ECDSASignature.der(fromRaw: signature) else { return false }
        return verify(der: der, message: message)
    }

    /// Whether `signature`, a strict-DER `ECDSA-Sig-Value` (RFC 3279 §2.2.3), is valid for `message`.
    package func isValidDERSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard ECDSASignature.raw(fromDER: signature) != nil else { return false }
        return verify(der: signature, message: message)
    }

    private func verify(der: [UInt8], message: [UInt8]) -> Bool {
        verifier.verify(signature: der, message: message)
    }
}

extension EVPKey {
    /// Whether this is an EC key on P-256 (prime256v1).
    var isP256: Bool {
        withUnsafePointer { pkey in
            guard EVP_PKEY_is_a(pkey, "EC") == 1 else { return false }
            var name = [CChar](repeating: 0, count: 64)
            var length = 0
            guard EVP_PKEY_get_utf8_string_param(pkey, "group", &name, name.count, &length) == 1 else {
                OpenSSLError.drainQueue()
                return false
            }
            let group = name.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            return group == "prime256v1" || group == "P-256"
        }
    }

    /// A P-256 affine coordinate left-padded to 32 bytes.
    func coordinate(_ name: String) -> [UInt8] {
        let bytes = (try? bigNumberParameter(name)) ?? []
        return [UInt8](repeating: 0, count: max(0, 32 - bytes.count)) + bytes
    }
}
