extension JSONParser {

    /// RFC 8259 §7 strings; the bytes between escapes must be valid UTF-8 (§8.1).
    mutating func parseString() throws -> String {
        index += 1  // opening quote
        var scan = index
        var highBits: UInt64 = 0
        if let base = bytes.baseAddress {
            // Eight bytes at a time up to the first word holding a quote, a backslash or a control character.
            while scan + 8 <= bytes.count {
                let word = UnsafeRawPointer(base + scan).loadUnaligned(as: UInt64.self)
                if Self.mayEndRun(word) { break }
                highBits |= word
                scan += 8
            }
        }
        while scan < bytes.count {
            let byte = bytes[scan]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { break }
            highBits |= UInt64(byte)
            scan += 1
        }
        let isASCII = highBits & 0x8080_8080_8080_8080 == 0
        if scan < bytes.count, bytes[scan] == UInt8(ascii: "\"") {
            let run = UnsafeBufferPointer(rebasing: bytes[index..<scan])
            index = scan + 1
            // ASCII is valid UTF-8 as it stands; anything else is validated.
            if isASCII { return String(decoding: run, as: UTF8.self) }
            guard let string = String(validating: run, as: UTF8.self) else { throw Failure() }
            return string
        }
        var out = [UInt8]()
        var runStart = index
        while true {
            guard index < bytes.count else { throw Failure() }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                index += 1
                break
            }
            guard byte >= 0x20 else { throw Failure() }
            if byte == UInt8(ascii: "\\") {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                index += 1
                try parseEscape(into: &out)
                runStart = index
                continue
            }
            index += 1
        }
        guard let string = String(validating: out, as: UTF8.self) else { throw Failure() }
        return string
    }

    /// Whether `word` (eight bytes of a string) may hold a byte below 0x20, a `"` or a `\\`: never false when one
    /// is there; the bytes of a word for which it is true are then looked at one by one.
    @inline(__always)
    static func mayEndRun(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let control = (word &- ones &* 0x20) & ~word
        let zeroQuote = (quote &- ones) & ~quote
        let zeroBackslash = (backslash &- ones) & ~backslash
        return (control | zeroQuote | zeroBackslash) & highs != 0
    }

    private mutating func parseEscape(into out: inout [UInt8]) throws {
        guard index < bytes.count else { throw Failure() }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(byte)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0c)
        case UInt8(ascii: "n"): out.append(0x0a)
        case UInt8(ascii: "r"): out.append(0x0d)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xd800..<0xdc00).contains(scalar) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { throw Failure() }
                index += 2
                let low = try parseHex4()
                guard (0xdc00..<0xe000).contains(low) else { throw Failure() }
                scalar = 0x10000 + ((scalar - 0xd800) << 10) + (low - 0xdc00)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw Failure() }
            out.append(contentsOf: Array(String(Character(unicode)).utf8))
        default:
            throw Failure()
        }
    }

    private mutating func parseHex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw Failure() }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw Failure()
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }
}
