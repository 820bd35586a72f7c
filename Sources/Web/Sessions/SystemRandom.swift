import CryptoCore

/// Random session ids from CryptoCore's `SecureRandom` (OpenSSL's DRBG), as unpadded base64url.
enum SystemRandom {
    /// `count` random bytes as unpadded base64url (RFC 4648 §5).
    static func base64URL(_ count: Int) throws -> String {
        Base64URL.encode(try SecureRandom.bytes(count: count))
    }
}
