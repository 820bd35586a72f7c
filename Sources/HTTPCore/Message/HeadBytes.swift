/// The bytes of a message head that the server's responses and the client's requests write alike: checked field
/// lines and decimal numbers.
enum HeadBytes {
    /// Appends `name: value` and CRLF, or nothing (false) unless the name is a token (RFC 9110 §5.1) and the
    /// value has no CR, LF, NUL or other CTL but HTAB (§5.5): no header injection, no response splitting.
    static func appendField(_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>,
                            to out: inout [UInt8]) -> Bool {
        guard !name.isEmpty, name.allSatisfy(HTTPGrammar.isTokenChar), value.allSatisfy(HTTPGrammar.isFieldValueChar)
        else { return false }
        out.append(contentsOf: name)
        out.append(HTTPGrammar.colon)
        out.append(HTTPGrammar.space)
        out.append(contentsOf: value)
        out.append(HTTPGrammar.cr)
        out.append(HTTPGrammar.lf)
        return true
    }

    /// `appendField` on the UTF-8 of two strings, read in place.
    static func appendField(_ name: String, _ value: String, to out: inout [UInt8]) -> Bool {
        var name = name, value = value
        return name.withUTF8 { name in value.withUTF8 { value in appendField(name, value, to: &out) } }
    }

    /// `value`, not negative, in decimal digits.
    static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        guard value >= 10 else {
            out.append(UInt8(0x30 + value))
            return
        }
        appendDecimal(value / 10, to: &out)
        out.append(UInt8(0x30 + value % 10))
    }
}
