import HTTPCore
/// Strict percent-decoding (RFC 3986 §2.1): `%` must be followed by two hex digits and the result must be UTF-8.
enum PercentDecoding {
    struct Error: Swift.Error, Equatable {}

    /// Decodes `text`; with `plusAsSpace`, `+` means a space (HTML form encoding, WHATWG URL §5.1).
    static func decode(_ text: Substring, plusAsSpace: Bool = false) throws(Error) -> String {
        let utf8 = text.utf8
        guard utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusAsSpace && $0 == UInt8(ascii: "+")) }) else {
            return String(text)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%") {
                let high = utf8.index(after: index)
                guard high != utf8.endIndex, let h = HTTPGrammar.hexValue(utf8[high]) else { throw Error() }
                let low = utf8.index(after: high)
                guard low != utf8.endIndex, let l = HTTPGrammar.hexValue(utf8[low]) else { throw Error() }
                bytes.append(h << 4 | l)
                index = utf8.index(after: low)
                continue
            }
            bytes.append(plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index = utf8.index(after: index)
        }
        guard let string = String(validating: bytes, as: UTF8.self) else { throw Error() }
        return string
    }

    /// Percent-encodes every byte outside RFC 3986's unreserved set (§2.3).
    static func encode(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                result += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]], as: UTF8.self)
            }
        }
        return result
    }
}
