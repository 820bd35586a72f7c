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

/// An `EVP_CIPHER` fetched once from the default provider and freed exactly once, sparing every seal the implicit
/// fetch that `EVP_aes_256_gcm()` costs in OpenSSL 3 (crypto(7), "Performance").
final class CipherAlgorithm: @unchecked Sendable {  // immutable after fetch; EVP_CIPHER is shareable across threads
    private let pointer: OpaquePointer  // EVP_CIPHER *

    private init(name: String) {
        // AES-256-GCM is in every OpenSSL 3 default provider; without it nothing here can work.
        guard let cipher = EVP_CIPHER_fetch(nil, name, nil) else {
            fatalError("OpenSSL cannot fetch \(name): \(OpenSSLError("EVP_CIPHER_fetch"))")
        }
        pointer = cipher
    }

    deinit { EVP_CIPHER_free(pointer) }

    func withUnsafePointer<T>(_ body: (OpaquePointer) throws -> T) rethrows -> T { try body(pointer) }

    static let aes256GCM = CipherAlgorithm(name: "AES-256-GCM")
}
