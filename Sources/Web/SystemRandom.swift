import CryptoCore

/// Random session ids from CryptoCore's `SecureRandom` (OpenSSL's DRBG), as unpadded base64url.
enum SystemRandom {
    /// `count` random bytes as unpadded base64url (RFC 4648 §5).
    static func base64URL(_ count: Int) throws -> String {
        Base64URL.encode(try SecureRandom.bytes(count: count))
    }
}

enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let n = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            for shift in [18, 12, 6, 0] { out.append(alphabet[Int(n >> UInt32(shift) & 63)]) }
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            var n = UInt32(bytes[index]) << 16
            if rest == 2 { n |= UInt32(bytes[index + 1]) << 8 }
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            if rest == 2 { out.append(alphabet[Int(n >> 6 & 63)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `text` is exactly what `encode` produces for `byteCount` bytes.
    static func isEncoding(_ text: String, ofByteCount byteCount: Int) -> Bool {
        text.utf8.count == (byteCount * 4 + 2) / 3 && text.utf8.allSatisfy { alphabet.contains($0) }
    }
}
