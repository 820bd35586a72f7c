import COpenSSL

/// AES-256 in Galois/Counter Mode (NIST SP 800-38D) for data at rest, such as Apple refresh tokens.
///
/// A sealed box is `nonce (12 bytes) || ciphertext || tag (16 bytes)`. Every seal draws a fresh
/// random 96-bit nonce (SP 800-38D §8.2.2); keep well under 2^32 seals per key.
package enum AES256GCM {
    package static let keySize = 32
    package static let nonceSize = 12
    package static let tagSize = 16

    /// Encrypts and authenticates `plaintext`, binding `associatedData` (authenticated, not encrypted).
    /// - Parameters:
    ///   - plaintext: the bytes to protect.
    ///   - key: 32 secret bytes, e.g. from ``SecureRandom/bytes(count:)``.
    ///   - associatedData: context the box is bound to, such as the owning user id.
    /// - Returns: `nonce || ciphertext || tag`.
    package static func seal(_ plaintext: [UInt8], key: [UInt8], associatedData: [UInt8] = []) throws -> [UInt8] {
        guard key.count == keySize else { throw AEADError(.invalidKeySize) }
        let nonce = try SecureRandom.bytes(count: nonceSize)
        let ctx = try CipherContext()
        return try ctx.withUnsafePointer { ctx in
            try start(ctx, encrypt: true, key: key, nonce: nonce)
            try feedAssociatedData(ctx, associatedData, encrypt: true)
            var output = nonce
            var body = [UInt8](repeating: 0, count: plaintext.count + 16)
            var length: Int32 = 0
            if !plaintext.isEmpty {
                try check(EVP_EncryptUpdate(ctx, &body, &length, plaintext, Int32(plaintext.count)), "EVP_EncryptUpdate")
            }
            var finalLength: Int32 = 0
            try body.withUnsafeMutableBufferPointer { buffer in
                try check(EVP_EncryptFinal_ex(ctx, buffer.baseAddress! + Int(length), &finalLength), "EVP_EncryptFinal_ex")
            }
            output += body.prefix(Int(length + finalLength))
            var tag = [UInt8](repeating: 0, count: tagSize)
            try check(copenssl_gcm_get_tag(ctx, Int32(tagSize), &tag), "EVP_CTRL_GCM_GET_TAG")
            return output + tag
        }
    }

    /// Checks and decrypts a box made by ``seal(_:key:associatedData:)``.
    /// - Throws: ``AEADError`` with `.authenticationFailed` when anything was altered.
    package static func open(_ box: [UInt8], key: [UInt8], associatedData: [UInt8] = []) throws -> [UInt8] {
        guard key.count == keySize else { throw AEADError(.invalidKeySize) }
        guard box.count >= nonceSize + tagSize else { throw AEADError(.truncated) }
        let nonce = Array(box[0..<nonceSize])
        let ciphertext = Array(box[nonceSize..<(box.count - tagSize)])
        var tag = Array(box[(box.count - tagSize)...])
        let ctx = try CipherContext()
        return try ctx.withUnsafePointer { ctx in
            try start(ctx, encrypt: false, key: key, nonce: nonce)
            try feedAssociatedData(ctx, associatedData, encrypt: false)
            var plaintext = [UInt8](repeating: 0, count: ciphertext.count + 16)
            var length: Int32 = 0
            if !ciphertext.isEmpty {
                try check(EVP_DecryptUpdate(ctx, &plaintext, &length, ciphertext, Int32(ciphertext.count)), "EVP_DecryptUpdate")
            }
            try check(copenssl_gcm_set_tag(ctx, Int32(tagSize), &tag), "EVP_CTRL_GCM_SET_TAG")
            var finalLength: Int32 = 0
            let verified = plaintext.withUnsafeMutableBufferPointer { buffer in
                EVP_DecryptFinal_ex(ctx, buffer.baseAddress! + Int(length), &finalLength)
            }
            guard verified == 1 else {
                OpenSSLError.drainQueue()
                throw AEADError(.authenticationFailed)
            }
            return Array(plaintext.prefix(Int(length + finalLength)))
        }
    }

    private static func start(_ ctx: OpaquePointer, encrypt: Bool, key: [UInt8], nonce: [UInt8]) throws {
        try CipherAlgorithm.aes256GCM.withUnsafePointer { cipher in
            if encrypt {
                try check(EVP_EncryptInit_ex(ctx, cipher, nil, nil, nil), "EVP_EncryptInit_ex")
                try check(copenssl_gcm_set_iv_length(ctx, Int32(nonceSize)), "EVP_CTRL_GCM_SET_IVLEN")
                try check(EVP_EncryptInit_ex(ctx, nil, nil, key, nonce), "EVP_EncryptInit_ex(key)")
            } else {
                try check(EVP_DecryptInit_ex(ctx, cipher, nil, nil, nil), "EVP_DecryptInit_ex")
                try check(copenssl_gcm_set_iv_length(ctx, Int32(nonceSize)), "EVP_CTRL_GCM_SET_IVLEN")
                try check(EVP_DecryptInit_ex(ctx, nil, nil, key, nonce), "EVP_DecryptInit_ex(key)")
            }
        }
    }

    private static func feedAssociatedData(_ ctx: OpaquePointer, _ data: [UInt8], encrypt: Bool) throws {
        guard !data.isEmpty else { return }
        var ignored: Int32 = 0
        if encrypt {
            try check(EVP_EncryptUpdate(ctx, nil, &ignored, data, Int32(data.count)), "EVP_EncryptUpdate(aad)")
        } else {
            try check(EVP_DecryptUpdate(ctx, nil, &ignored, data, Int32(data.count)), "EVP_DecryptUpdate(aad)")
        }
    }
}
