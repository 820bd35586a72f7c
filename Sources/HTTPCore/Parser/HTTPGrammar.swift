/// Character classes of RFC 9110 §5.6 and RFC 9112, as byte predicates.
package enum HTTPGrammar {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let colon: UInt8 = 0x3A

    /// `tchar` (RFC 9110 §5.6.2): `!#$%&'*+-.^_`|~`, digits, letters.
    @inline(__always)
    static func isTokenChar(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: true
        default: false
        }
    }

    /// `field-vchar` / SP / HTAB (RFC 9110 §5.5): visible ASCII, obs-text, and blanks; no CTL.
    @inline(__always)
    static func isFieldValueChar(_ byte: UInt8) -> Bool {
        byte == tab || (byte >= 0x20 && byte != 0x7F)
    }

    /// Characters allowed in a request target: visible ASCII except `#` (a fragment is never sent,
    /// RFC 9112 §3.2.1) and `\\` (not a URI character, RFC 3986 §2); `"<>{}|^` and backtick are tolerated.
    @inline(__always)
    static func isTargetChar(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F && byte != 0x23 && byte != 0x5C
    }

    /// The value of one hexadecimal digit (RFC 5234 HEXDIG, either case), or nil.
    @inline(__always)
    package static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }

    @inline(__always)
    static func lower(_ byte: UInt8) -> UInt8 {
        (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
    }

    /// Whether `bytes` equals the lowercase ASCII `name`, ignoring case.
    @inline(__always)
    static func equalsLowercase(_ bytes: UnsafeRawBufferPointer, _ name: StaticString) -> Bool {
        guard bytes.count == name.utf8CodeUnitCount else { return false }
        let expected = name.utf8Start
        for i in 0..<bytes.count where lower(bytes[i]) != expected[i] { return false }
        return true
    }

    /// Trims SP and HTAB at both ends (OWS, RFC 9110 §5.6.3).
    static func trimmed(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var start = 0
        var end = bytes.count
        while start < end, bytes[start] == space || bytes[start] == tab { start += 1 }
        while end > start, bytes[end - 1] == space || bytes[end - 1] == tab { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    }

    static func string(_ bytes: UnsafeRawBufferPointer) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
