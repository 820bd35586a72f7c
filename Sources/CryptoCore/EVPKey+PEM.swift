import COpenSSL

extension EVPKey {
    /// Reads a private key from PEM (PKCS#8 `PRIVATE KEY`, as in Apple's `.p8` files) and checks
    /// it is of `algorithm` ("RSA" or "EC").
    static func privateKey(pem: [UInt8], algorithm: String) throws -> EVPKey {
        let bio = try MemoryBIO(reading: pem)
        let pointer = bio.withUnsafePointer { PEM_read_bio_PrivateKey($0, nil, nil, nil) }
        guard let pointer else {
            OpenSSLError.drainQueue()
            throw CryptoKeyError(.invalidEncoding)
        }
        let key = EVPKey(takingOwnershipOf: pointer)
        guard EVP_PKEY_is_a(pointer, algorithm) == 1 else { throw CryptoKeyError(.wrongKeyType) }
        return key
    }

    /// The private key as unencrypted PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`).
    func privateKeyPEM() throws -> String {
        let bio = try MemoryBIO()
        try withUnsafePointer { pkey in
            try bio.withUnsafePointer { b in
                try check(PEM_write_bio_PrivateKey(b, pkey, nil, nil, 0, nil, nil), "PEM_write_bio_PrivateKey")
            }
        }
        return String(decoding: bio.contents, as: UTF8.self)
    }

    /// The public key as SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`).
    func publicKeyPEM() throws -> String {
        let bio = try MemoryBIO()
        try withUnsafePointer { pkey in
            try bio.withUnsafePointer { b in
                try check(PEM_write_bio_PUBKEY(b, pkey), "PEM_write_bio_PUBKEY")
            }
        }
        return String(decoding: bio.contents, as: UTF8.self)
    }

    /// Reads a SubjectPublicKeyInfo PEM public key and checks it is of `algorithm`.
    static func publicKey(pem: [UInt8], algorithm: String) throws -> EVPKey {
        let bio = try MemoryBIO(reading: pem)
        let pointer = bio.withUnsafePointer { PEM_read_bio_PUBKEY($0, nil, nil, nil) }
        guard let pointer else {
            OpenSSLError.drainQueue()
            throw CryptoKeyError(.invalidEncoding)
        }
        let key = EVPKey(takingOwnershipOf: pointer)
        guard EVP_PKEY_is_a(pointer, algorithm) == 1 else { throw CryptoKeyError(.wrongKeyType) }
        return key
    }
}
