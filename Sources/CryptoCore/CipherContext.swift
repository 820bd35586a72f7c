import COpenSSL

/// An `EVP_CIPHER_CTX` owned by this object and freed exactly once; one per seal or open.
final class CipherContext {
    private let pointer: OpaquePointer  // EVP_CIPHER_CTX *

    init() throws {
        guard let ctx = EVP_CIPHER_CTX_new() else { throw OpenSSLError("EVP_CIPHER_CTX_new") }
        pointer = ctx
    }

    deinit { EVP_CIPHER_CTX_free(pointer) }

    func withUnsafePointer<T>(_ body: (OpaquePointer) throws -> T) rethrows -> T { try body(pointer) }
}
