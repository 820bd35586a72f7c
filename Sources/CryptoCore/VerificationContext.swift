import COpenSSL

/// An `EVP_PKEY_CTX` set up once for verification (key, padding, SHA-256), owned by this object
/// and freed exactly once; each verification works on its own `EVP_PKEY_CTX_dup` of it.
///
/// Setting up a context in OpenSSL 3 fetches the signature implementation and costs more than
/// an RSA-2048 verification itself; duplicating a ready one does not (EVP_PKEY_CTX_dup(3)).
/// The template is never used or changed after `init`, only read by `dup`, so one object
/// serves every thread.
final class VerificationContext {
    private let template: OpaquePointer  // EVP_PKEY_CTX *

    /// - Parameter configure: extra set-up, such as RSA padding; returns OpenSSL's status.
    init(key: EVPKey, configure: (OpaquePointer) -> Int32 = { _ in 1 }) throws {
        guard let ctx = key.withUnsafePointer({ EVP_PKEY_CTX_new_from_pkey(nil, $0, nil) }) else {
            throw OpenSSLError("EVP_PKEY_CTX_new_from_pkey")
        }
        do {
            try check(EVP_PKEY_verify_init(ctx), "EVP_PKEY_verify_init")
            try check(configure(ctx), "EVP_PKEY_CTX configuration")
            try MessageDigest.sha256.withUnsafePointer { md in
                try check(EVP_PKEY_CTX_set_signature_md(ctx, md), "EVP_PKEY_CTX_set_signature_md")
            }
        } catch {
            EVP_PKEY_CTX_free(ctx)
            throw error
        }
        template = ctx
    }

    deinit { EVP_PKEY_CTX_free(template) }

    /// Whether `signature` is valid over the SHA-256 of `message` (EVP_PKEY_verify(3)).
    func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        let digest = SHA256.hash(message)
        guard let ctx = EVP_PKEY_CTX_dup(template) else {
            OpenSSLError.drainQueue()
            return false
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        let result = signature.withUnsafeBufferPointer { sig in
            digest.withUnsafeBufferPointer { EVP_PKEY_verify(ctx, sig.baseAddress, sig.count, $0.baseAddress, $0.count) }
        }
        if result != 1 { OpenSSLError.drainQueue() }
        return result == 1
    }
}

extension VerificationContext: @unchecked Sendable {}  // the template is immutable after init; each use dups it
