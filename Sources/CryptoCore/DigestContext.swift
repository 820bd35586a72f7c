import COpenSSL

/// An `EVP_MD_CTX` owned by this object and freed exactly once; one per sign or verify operation.
final class DigestContext {
    private let pointer: OpaquePointer  // EVP_MD_CTX *

    init() throws {
        guard let ctx = EVP_MD_CTX_new() else { throw OpenSSLError("EVP_MD_CTX_new") }
        pointer = ctx
    }

    deinit { EVP_MD_CTX_free(pointer) }

    /// Verifies `signature` over `message` with SHA-256 and `key` (EVP_DigestVerify(3)).
    /// - Parameter configure: sets padding on the key context (RSA); nil for ECDSA.
    func verifySHA256(
        signature: [UInt8], message: [UInt8], key: EVPKey, configure: ((OpaquePointer) -> Int32)? = nil
    ) -> Bool {
        var pkeyContext: OpaquePointer? = nil  // owned by the EVP_MD_CTX
        let initialised = key.withUnsafePointer { pkey in
            MessageDigest.sha256.withUnsafePointer { md in
                EVP_DigestVerifyInit(pointer, &pkeyContext, md, nil, pkey)
            }
        }
        guard initialised == 1, let pkeyContext, configure.map({ $0(pkeyContext) == 1 }) ?? true else {
            OpenSSLError.drainQueue()
            return false
        }
        let result = signature.withUnsafeBufferPointer { sig in
            message.withUnsafeBufferPointer { msg in
                EVP_DigestVerify(pointer, sig.baseAddress, sig.count, msg.baseAddress, msg.count)
            }
        }
        if result != 1 { OpenSSLError.drainQueue() }
        return result == 1
    }

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
