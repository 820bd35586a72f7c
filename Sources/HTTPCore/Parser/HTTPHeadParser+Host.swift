extension HTTPHeadParser {
    /// `Host = uri-host [ ":" port ]` (RFC 9110 §7.2), where `uri-host` is RFC 3986 §3.2.2's `host` and
    /// `port = *DIGIT` (§3.2.3). A value that is not this is answered 400 (RFC 9112 §3.2): `a:b:c` (a second
    /// colon), `[::1` (an unclosed IP-literal), `%zz` (an escape that is not two hex digits). An empty value is
    /// allowed here (RFC 9112 §3.2 sends one with an absolute-form target); a port after an empty host is not
    /// (RFC 9110 §4.2.1: no empty host in an http URI).
    static func isValidHost(_ value: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        if value.first == 0x5B {
            guard let close = value.firstIndex(of: 0x5D),
                  isIPLiteral(UnsafeRawBufferPointer(rebasing: value[1..<close])) else { return false }
            i = close + 1
        } else {
            while i < value.count, value[i] != HTTPGrammar.colon {
                if value[i] == 0x25 {
                    guard i + 2 < value.count, HTTPGrammar.hexValue(value[i + 1]) != nil,
                          HTTPGrammar.hexValue(value[i + 2]) != nil else { return false }
                    i += 3
                } else {
                    guard isRegNameChar(value[i]) else { return false }
                    i += 1
                }
            }
            if i == 0, i < value.count { return false }
        }
        guard i < value.count else { return true }
        guard value[i] == HTTPGrammar.colon else { return false }
        return value[(i + 1)...].allSatisfy { (0x30...0x39).contains($0) }
    }

    /// The inside of `IP-literal = "[" ( IPv6address / IPvFuture ) "]"` (RFC 3986 §3.2.2); IPv6 as
    /// `inet_pton(3)` reads it (RFC 4291 §2.2), `IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )`.
    static func isIPLiteral(_ inside: UnsafeRawBufferPointer) -> Bool {
        guard let first = inside.first else { return false }
        guard first == 0x76 || first == 0x56 else {
            return inside.count <= 45 && IPLiteral.isIPv6(HTTPGrammar.string(inside))
        }
        guard let dot = inside.firstIndex(of: 0x2E), dot > 1, dot + 1 < inside.count,
              inside[1..<dot].allSatisfy({ HTTPGrammar.hexValue($0) != nil }) else { return false }
        return inside[(dot + 1)...].allSatisfy { isRegNameChar($0) || $0 == HTTPGrammar.colon }
    }

    /// `unreserved / sub-delims` (RFC 3986 §2.2, §2.3): the characters of a `reg-name` besides `%XX` escapes.
    static func isRegNameChar(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E: true
        case 0x21, 0x24, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x3B, 0x3D: true
        default: false
        }
    }
}
