import HTTPCore

extension HTTPCookie {
    /// The `Set-Cookie` field value (RFC 6265 §4.1.1): `name=value; Max-Age=...; Expires=...; Path=...; Domain=...;
    /// HttpOnly; Secure; SameSite=...`, the order README "The web flow" writes them in. Throws `CookieError` instead of sending
    /// something a client would misread.
    package func serialized() throws(CookieError) -> String {
        guard !name.isEmpty, name.utf8.allSatisfy(Self.isTokenByte) else { throw .invalidName(name) }
        guard value.utf8.allSatisfy(Self.isCookieOctet) else { throw .invalidValue(cookie: name) }
        var line = name + "=" + value
        if let maxAge { line += "; Max-Age=\(maxAge)" }
        if let expires { line += "; Expires=" + HTTPDate.format(secondsSince1970: Int(expires.timeIntervalSince1970.rounded(.down))) }
        if let path {
            guard path.utf8.allSatisfy(Self.isAttributeOctet) else { throw .invalidAttribute(cookie: name, attribute: "Path") }
            line += "; Path=" + path
        }
        if let domain {
            guard !domain.isEmpty, domain.utf8.allSatisfy(Self.isAttributeOctet) else {
                throw .invalidAttribute(cookie: name, attribute: "Domain")
            }
            line += "; Domain=" + domain
        }
        if sameSite == .none, !secure { throw .sameSiteNoneRequiresSecure(cookie: name) }
        if httpOnly { line += "; HttpOnly" }
        if secure { line += "; Secure" }
        if sameSite != .unset { line += "; SameSite=" + sameSite.rawValue }
        return line
    }

    /// tchar (RFC 9110 §5.6.2).
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// cookie-octet: %x21 / %x23-2B / %x2D-3A / %x3C-5B / %x5D-7E (RFC 6265 §4.1.1).
    static func isCookieOctet(_ byte: UInt8) -> Bool {
        byte == 0x21 || (0x23...0x2B).contains(byte) || (0x2D...0x3A).contains(byte)
            || (0x3C...0x5B).contains(byte) || (0x5D...0x7E).contains(byte)
    }

    /// av-octet: any CHAR except CTLs or `;` (RFC 6265 §4.1.1).
    static func isAttributeOctet(_ byte: UInt8) -> Bool {
        (0x20...0x7E).contains(byte) && byte != UInt8(ascii: ";")
    }
}
