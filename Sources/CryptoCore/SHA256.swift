import COpenSSL

/// SHA-256 (FIPS 180-4) through OpenSSL's EVP interface.
package enum SHA256 {
    /// The 32-byte digest of `bytes`.
    package static func hash(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBufferPointer(hash(buffer:))
    }

    /// The digest of the UTF-8 bytes of `string`, read in place.
    package static func hash(_ string: String) -> [UInt8] {
        var string = string
        return string.withUTF8(hash(buffer:))
    }

    private static func hash(buffer input: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let result = MessageDigest.sha256.withUnsafePointer { md in
            EVP_Digest(input.baseAddress, input.count, &digest, &length, md, nil)
        }
        // EVP_Digest fails only on allocation failure or a broken provider; hashing has no recovery.
        precondition(result == 1 && length == 32, "\(OpenSSLError("EVP_Digest"))")
        return digest
    }

    /// The digest of `bytes` as 64 lowercase hexadecimal characters.
    package static func hexHash(_ bytes: [UInt8]) -> String { hex(hash(bytes)) }

    /// The digest of the UTF-8 bytes of `string` as lowercase hexadecimal.
    package static func hexHash(_ string: String) -> String { hex(hash(string)) }

    /// Lowercase hexadecimal of `bytes`.
    package static func hex(_ bytes: [UInt8]) -> String {
        String(decoding: hexBytes(bytes), as: UTF8.self)
    }

    /// Lowercase hexadecimal of `bytes`, as ASCII bytes.
    package static func hexBytes(_ bytes: [UInt8]) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: bytes.count * 2) { out, initialized in
            for (i, byte) in bytes.enumerated() {
                out[2 * i] = digit(byte >> 4)
                out[2 * i + 1] = digit(byte & 0x0f)
            }
            initialized = bytes.count * 2
        }
    }

    @inline(__always)
    private static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
