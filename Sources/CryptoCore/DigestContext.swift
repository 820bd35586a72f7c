import COpenSSL

/// An `EVP_MD_CTX` owned by this object and freed exactly once; one per signing operation.
final class DigestContext {
    private let pointer: OpaquePointer  // EVP_MD_CTX *

    init() throws {
        guard let ctx = EVP_MD_CTX_new() else { throw OpenSSLError("EVP_MD_CTX_new") }
        pointer = ctx
    }

    deinit { EVP_MD_CTX_free(pointer) }

    /// Signs `message` with SHA-256 and `key` (EVP_DigestSign(3)).
    func signSHA256(
        message: [UInt8], key: EVPKey, configure: ((OpaquePointer) -> Int32)? = nil
    ) throws -> [UInt8] {
        var pkeyContext: OpaquePointer? = nil  // owned by the EVP_MD_CTX
        try key.withUnsafePointer { pkey in
            try MessageDigest.sha256.withUnsafePointer { md in
                try check(EVP_DigestSignInit(pointer, &pkeyContext, md, nil, pkey), "EVP_DigestSignInit")
            }
        }
        if let configure, let pkeyContext {
            try check(configure(pkeyContext), "EVP_PKEY_CTX configuration")
        }
        var length = 0
        try message.withUnsafeBufferPointer { msg in
            try check(EVP_DigestSign(pointer, nil, &length, msg.baseAddress, msg.count), "EVP_DigestSign(size)")
        }
        var signature = [UInt8](repeating: 0, count: length)
        try message.withUnsafeBufferPointer { msg in
            try check(EVP_DigestSign(pointer, &signature, &length, msg.baseAddress, msg.count), "EVP_DigestSign")
        }
        return Array(signature.prefix(length))
    }
}
