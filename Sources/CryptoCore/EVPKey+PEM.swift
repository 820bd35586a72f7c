import COpenSSL

extension EVPKey {
    /// Reads a private key from PEM (PKCS#8 `PRIVATE KEY`, as in Apple's `.p8` files) and checks
    /// it is of `algorithm` ("RSA" or "EC").
    static func privateKey(pem: [UInt8], algorithm: String) throws -> EVPKey {
        try read(pem, algorithm: algorithm) { PEM_read_bio_PrivateKey($0, nil, nil, nil) }
    }

    /// Reads a SubjectPublicKeyInfo PEM public key and checks it is of `algorithm`.
    static func publicKey(pem: [UInt8], algorithm: String) throws -> EVPKey {
        try read(pem, algorithm: algorithm) { PEM_read_bio_PUBKEY($0, nil, nil, nil) }
    }

    /// The private key as unencrypted PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`).
    func privateKeyPEM() throws -> String {
        try write("PEM_write_bio_PrivateKey") { bio, pkey in PEM_write_bio_PrivateKey(bio, pkey, nil, nil, 0, nil, nil) }
    }

    /// The public key as SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`).
    func publicKeyPEM() throws -> String {
        try write("PEM_write_bio_PUBKEY") { bio, pkey in PEM_write_bio_PUBKEY(bio, pkey) }
    }

    /// Runs a `PEM_read_bio_*` over `pem`; the key it returns is owned by the result.
    private static func read(_ pem: [UInt8], algorithm: String,
                             _ readKey: (OpaquePointer) -> OpaquePointer?) throws -> EVPKey {
        let bio = try MemoryBIO(reading: pem)
        guard let pointer = bio.withUnsafePointer(readKey) else {
            OpenSSLError.drainQueue()
            throw CryptoKeyError(.invalidEncoding)
        }
        let key = EVPKey(takingOwnershipOf: pointer)
        guard EVP_PKEY_is_a(pointer, algorithm) == 1 else { throw CryptoKeyError(.wrongKeyType) }
        return key
    }

    /// Runs a `PEM_write_bio_*` of this key into memory and returns the text.
    private func write(_ function: String, _ writeKey: (OpaquePointer, OpaquePointer) -> Int32) throws -> String {
        let bio = try MemoryBIO()
        try withUnsafePointer { pkey in
            try bio.withUnsafePointer { b in try check(writeKey(b, pkey), function) }
        }
        return String(decoding: bio.contents, as: UTF8.self)
    }
}
