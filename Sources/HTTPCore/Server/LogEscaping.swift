/// The one way a value that came with a request reaches a log line: with its control characters written out, so a
/// client cannot end the line and forge the next one (CWE-117, OWASP "Log Injection").
///
/// ```swift
/// logger.info("Apple sign-in ended", metadata: ["apple_error": "\(LogEscaping.escape(error.prefix(64)))"])
/// ```
package enum LogEscaping {
    /// `value` with LF, CR and HTAB as `\n`, `\r`, `\t`, the backslash as `\\` (so an escape cannot be faked), and
    /// every other control character as `\u{…}`: the C0 controls and DEL (RFC 20), the C1 controls U+0080–U+009F
    /// (NEL among them) and the line and paragraph separators U+2028 and U+2029. Anything else is kept as it is.
    package static func escape(_ value: some StringProtocol) -> String {
        guard value.utf8.contains(where: { $0 < 0x20 || $0 >= 0x7F || $0 == 0x5C }),
              value.unicodeScalars.contains(where: needsEscape) else { return String(value) }
        var escaped = ""
        escaped.reserveCapacity(value.utf8.count + 16)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case "\\": escaped += "\\\\"
            case _ where needsEscape(scalar): escaped += "\\u{" + String(scalar.value, radix: 16) + "}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029, 0x5C: true
        default: false
        }
    }
}
