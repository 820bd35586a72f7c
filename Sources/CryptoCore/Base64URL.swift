/// Base64url without padding, as JWS requires (RFC 7515 §2, RFC 4648 §5).
///
/// Decoding is strict, so that each byte string has exactly one accepted text form: no `=`
/// padding, no `+` or `/`, no whitespace, no length ≡ 1 (mod 4), and unused trailing bits
/// must be zero (RFC 4648 §3.5, "canonical encoding").
package enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xff, count: 256)
        for (index, char) in alphabet.enumerated() { table[Int(char)] = UInt8(index) }
        return table
    }()

    /// Encodes `bytes` as unpadded base64url text.
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: encodeToBytes(bytes), as: UTF8.self)
    }

    /// Encodes `bytes` as unpadded base64url ASCII bytes.
    package static func encodeToBytes(_ bytes: some Collection<UInt8>) -> [UInt8] {
        if let result = bytes.withContiguousStorageIfAvailable({ encode(buffer: $0) }) { return result }
        return Array(bytes).withUnsafeBufferPointer { encode(buffer: $0) }
    }

    private static func encode(buffer input: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        let count = (input.count * 4 + 2) / 3
        return [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
            alphabet.withUnsafeBufferPointer { alphabet in
                var i = 0, o = 0
                while i + 3 <= input.count {
                    let v = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                    out[o] = alphabet[Int(v >> 18)]
                    out[o + 1] = alphabet[Int(v >> 12 & 63)]
                    out[o + 2] = alphabet[Int(v >> 6 & 63)]
                    out[o + 3] = alphabet[Int(v & 63)]
                    i += 3
                    o += 4
                }
                let rest = input.count - i
                if rest > 0 {
                    let v = UInt32(input[i]) << 16 | (rest == 2 ? UInt32(input[i + 1]) << 8 : 0)
                    out[o] = alphabet[Int(v >> 18)]
                    out[o + 1] = alphabet[Int(v >> 12 & 63)]
                    if rest == 2 { out[o + 2] = alphabet[Int(v >> 6 & 63)] }
                }
            }
            initialized = count
        }
    }

    /// Decodes strict unpadded base64url text, or returns nil.
    package static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode(buffer: $0) }
    }

    /// Decodes strict unpadded base64url ASCII bytes, or returns nil.
    package static func decode(_ input: some Collection<UInt8>) -> [UInt8]? {
        if let result = input.withContiguousStorageIfAvailable({ decode(buffer: $0) }) {
            return result
        }
        return Array(input).withUnsafeBufferPointer { decode(buffer: $0) }
    }

    /// Decodes strict unpadded base64url ASCII bytes in place, or returns nil; the JWS parser's entry point.
    package static func decode(buffer input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let remainder = input.count % 4
        guard remainder != 1 else { return nil }
        let capacity = input.count / 4 * 3 + (remainder == 0 ? 0 : remainder - 1)
        var valid = true
        let out = [UInt8](unsafeUninitializedCapacity: capacity) { out, initialized in
            decodeTable.withUnsafeBufferPointer { table in
                var i = 0, o = 0
                while i + 4 <= input.count {
                    let a = table[Int(input[i])], b = table[Int(input[i + 1])]
                    let c = table[Int(input[i + 2])], d = table[Int(input[i + 3])]
                    if (a | b | c | d) & 0xc0 != 0 { valid = false; break }
                    out[o] = a << 2 | b >> 4
                    out[o + 1] = (b & 0x0f) << 4 | c >> 2
                    out[o + 2] = (c & 0x03) << 6 | d
                    i += 4; o += 3
                }
                if valid && remainder >= 2 {
                    let a = table[Int(input[i])], b = table[Int(input[i + 1])]
                    let c = remainder == 3 ? table[Int(input[i + 2])] : 0
                    // RFC 4648 §3.5: bits after the last whole byte must be zero.
                    let unused = remainder == 2 ? b & 0x0f : c & 0x03
                    if (a | b | c) & 0xc0 != 0 || unused != 0 {
                        valid = false
                    } else {
                        out[o] = a << 2 | b >> 4
                        if remainder == 3 { out[o + 1] = (b & 0x0f) << 4 | c >> 2 }
                    }
                }
            }
            initialized = valid ? capacity : 0
        }
        return valid ? out : nil
    }

    /// Whether `text` is exactly what `encode` produces for `byteCount` bytes (session ids, state values).
    package static func isEncoding(_ text: String, ofByteCount byteCount: Int) -> Bool {
        text.utf8.count == (byteCount * 4 + 2) / 3 && text.utf8.allSatisfy { decodeTable[Int($0)] != 0xff }
    }
}
