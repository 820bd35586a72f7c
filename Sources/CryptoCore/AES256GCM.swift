import COpenSSL
import Synchronization

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
        try AES256GCMSealer(key: key).seal(plaintext, associatedData: associatedData)
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

    /// Sets `ctx` up for AES-256-GCM with `key`, and `nonce` when given (a sealer sets its nonce per seal).
    fileprivate static func start(_ ctx: OpaquePointer, encrypt: Bool, key: [UInt8], nonce: [UInt8]?) throws {
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

    fileprivate static func feedAssociatedData(_ ctx: OpaquePointer, _ data: [UInt8], encrypt: Bool) throws {
        guard !data.isEmpty else { return }
        var ignored: Int32 = 0
        if encrypt {
            try check(EVP_EncryptUpdate(ctx, nil, &ignored, data, Int32(data.count)), "EVP_EncryptUpdate(aad)")
        } else {
            try check(EVP_DecryptUpdate(ctx, nil, &ignored, data, Int32(data.count)), "EVP_DecryptUpdate(aad)")
        }
    }
}

/// AES-256-GCM sealing under one key whose schedule is set up once (OpenSSL's key expansion and GHASH tables):
/// each seal then only sets its fresh random nonce. Boxes are those of ``AES256GCM/seal(_:key:associatedData:)``.
package final class AES256GCMSealer: @unchecked Sendable {  // the context is used under `lock` only
    private let context: CipherContext
    private let lock = Mutex(())

    /// - Throws: ``AEADError`` `.invalidKeySize` unless `key` is 32 bytes.
    package init(key: [UInt8]) throws {
        guard key.count == AES256GCM.keySize else { throw AEADError(.invalidKeySize) }
        context = try CipherContext()
        try context.withUnsafePointer { try AES256GCM.start($0, encrypt: true, key: key, nonce: nil) }
    }

    /// Encrypts and authenticates `plaintext` under a fresh random nonce, binding `associatedData`.
    package func seal(_ plaintext: [UInt8], associatedData: [UInt8] = []) throws -> [UInt8] {
        let nonce = try SecureRandom.bytes(count: AES256GCM.nonceSize)
        return try lock.withLock { _ in
            try context.withUnsafePointer { ctx in
                try check(EVP_EncryptInit_ex(ctx, nil, nil, nil, nonce), "EVP_EncryptInit_ex(nonce)")
                try AES256GCM.feedAssociatedData(ctx, associatedData, encrypt: true)
                return try Self.encrypt(ctx, nonce: nonce, plaintext: plaintext)
            }
        }
    }

    /// Encrypts `plaintext` on a context holding its key and `nonce`; returns `nonce || ciphertext || tag`.
    private static func encrypt(_ ctx: OpaquePointer, nonce: [UInt8], plaintext: [UInt8]) throws -> [UInt8] {
        let (nonceSize, tagSize) = (AES256GCM.nonceSize, AES256GCM.tagSize)
        var box = [UInt8](repeating: 0, count: nonceSize + plaintext.count + 16 + tagSize)
        box.replaceSubrange(0..<nonceSize, with: nonce)
        return try box.withUnsafeMutableBufferPointer { buffer -> [UInt8] in
            guard let base = buffer.baseAddress else { throw AEADError(.truncated) }
            var length: Int32 = 0
            if !plaintext.isEmpty {
                try check(EVP_EncryptUpdate(ctx, base + nonceSize, &length, plaintext, Int32(plaintext.count)),
                          "EVP_EncryptUpdate")
            }
            var finalLength: Int32 = 0
            try check(EVP_EncryptFinal_ex(ctx, base + nonceSize + Int(length), &finalLength), "EVP_EncryptFinal_ex")
            let end = nonceSize + Int(length + finalLength)
            try check(copenssl_gcm_get_tag(ctx, Int32(tagSize), base + end), "EVP_CTRL_GCM_GET_TAG")
            return Array(buffer[0..<(end + tagSize)])
        }
    }
}
