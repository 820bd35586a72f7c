import Foundation

extension UUID {
    /// The 36-character text form, 8-4-4-4-12 hexadecimal digits (RFC 9562 §4), in upper or lower case: what
    /// `uuidString` gives (upper case), without its `snprintf` per byte.
    package func text(uppercase: Bool) -> String {
        let digits = uppercase ? Self.upperDigits : Self.lowerDigits
        return withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { out in
                var at = 0
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        out[at] = UInt8(ascii: "-")
                        at += 1
                    }
                    out[at] = digits[Int(bytes[index] >> 4)]
                    out[at + 1] = digits[Int(bytes[index] & 0x0f)]
                    at += 2
                }
                return at
            }
        }
    }

    /// Parses the 36-character text form in either case: hyphens at offsets 8, 13, 18 and 23 and hexadecimal
    /// digits everywhere else; nil for anything else. Every canonical form `UUID(uuidString:)` reads, this reads
    /// alike; it is stricter on malformed text (Foundation on Linux scans with `sscanf`, which lets a leading
    /// blank or a sign through).
    package init?(text: String) {
        var text = text
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let parsed = text.withUTF8 { utf8 -> Bool in
            guard utf8.count == 36 else { return false }
            return withUnsafeMutableBytes(of: &value) { out in
                var at = 0
                for index in 0..<16 {
                    if at == 8 || at == 13 || at == 18 || at == 23 {
                        guard utf8[at] == UInt8(ascii: "-") else { return false }
                        at += 1
                    }
                    guard let high = Self.nibble(utf8[at]), let low = Self.nibble(utf8[at + 1]) else { return false }
                    out[index] = high << 4 | low
                    at += 2
                }
                return true
            }
        }
        guard parsed else { return nil }
        self.init(uuid: value)
    }

    private static let upperDigits = Array("0123456789ABCDEF".utf8)
    private static let lowerDigits = Array("0123456789abcdef".utf8)

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
