import COpenSSL

/// An `EVP_MD` fetched once from the default provider and freed exactly once.
///
/// Fetching explicitly avoids the implicit fetch (and its lock) that `EVP_sha256()` costs on
/// every `EVP_DigestVerifyInit` in OpenSSL 3 (crypto(7), "Performance").
final class MessageDigest {
    private let pointer: OpaquePointer  // EVP_MD *

    private init(name: String) {
        // SHA-256 is in every OpenSSL 3 default provider; without it nothing here can work.
        guard let md = EVP_MD_fetch(nil, name, nil) else {
            fatalError("OpenSSL cannot fetch \(name): \(OpenSSLError("EVP_MD_fetch"))")
        }
        pointer = md
    }

    deinit { EVP_MD_free(pointer) }

    func withUnsafePointer<T>(_ body: (OpaquePointer) throws -> T) rethrows -> T { try body(pointer) }

    static let sha256 = MessageDigest(name: "SHA256")
}

extension MessageDigest: @unchecked Sendable {}  // immutable after fetch; EVP_MD is shareable across threads
