/// The one way a value that came with a request reaches a log line: with its control characters written out, so a
/// client cannot end the line and forge the next one (CWE-117, OWASP "Log Injection").
///
/// ```swift
/// logger.info("Apple sign-in ended", metadata: ["apple_error": "\(LogEscaping.field(error.prefix(64)))"])
/// ```
package enum LogEscaping {
    /// A request value as a log line's metadata value (`key=value`): escaped as `escape` does, and in double quotes,
    /// its own quotes as `\"`, when it holds a space, `=` or `"`, so it cannot pass for fields of its own (logfmt).
    /// Found by an audit: `error=x user_id=…` wrote a second `user_id` into the line.
    package static func field(_ value: some StringProtocol) -> String {
        let escaped = escape(value)
        guard escaped.utf8.contains(where: { $0 == 0x20 || $0 == 0x3D || $0 == 0x22 }) else { return escaped }
        var quoted = "\""
        for scalar in escaped.unicodeScalars {
            if scalar == "\"" { quoted += "\\\"" } else { quoted.unicodeScalars.append(scalar) }
        }
        return quoted + "\""
    }

    /// `value` with LF, CR and HTAB as `\n`, `\r`, `\t`, the backslash as `\\` (so an escape cannot be faked), and
    /// every other control character as `\u{…}`: the C0 controls and DEL (RFC 20), the C1 controls U+0080–U+009F
    /// (NEL among them), the line and paragraph separators U+2028 and U+2029, and the bidirectional formatting
    /// characters (U+200E, U+200F, U+202A–U+202E, U+2066–U+2069). Anything else is kept as it is.
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

    /// Runs of a token's characters this long or longer (in a path, a method, a media type) are not written to a log.
    package static let opaqueSegmentLength = 40

    /// A request path for a log line: escaped as `escape` does, with every run of `opaqueSegmentLength` or more
    /// characters that could be a credential (letters, digits and `-._~=+%`: a JWT, a bearer token, an
    /// authorization code put in the path by mistake) written as `[redacted]`, whether it fills a segment or sits
    /// beside `;`, `:`, `@` or `,` in one (found by a review: `/callback;code=…` was logged whole). Ids of this
    /// server (UUIDs, 36 characters) and file names stay readable.
    package static func path(_ path: some StringProtocol) -> String { value(path) }

    /// Another short request value for a log line (a method, a media type): escaped as `escape` does, with every
    /// run of `opaqueSegmentLength` or more of a token's characters `[redacted]` (`redactingCredentials`). Found by
    /// an audit: a token sent as the method was written whole into the 501's reason and two log lines.
    package static func value(_ value: some StringProtocol) -> String { escape(redactingCredentials(value)) }

    /// `value` with every run of `opaqueSegmentLength` or more of a token's characters written `[redacted]`, and
    /// nothing else changed: for an error's reason, which its log line escapes in turn.
    package static func redactingCredentials(_ value: some StringProtocol) -> String {
        var run = 0
        guard value.utf8.contains(where: { byte in
            run = isTokenByte(byte) ? run + 1 : 0
            return run >= opaqueSegmentLength
        }) else { return String(value) }
        var output: [UInt8] = []
        var pending: [UInt8] = []
        func flush() {
            output += pending.count >= opaqueSegmentLength ? Array("[redacted]".utf8) : pending
            pending.removeAll(keepingCapacity: true)
        }
        for byte in value.utf8 {
            if isTokenByte(byte) {
                pending.append(byte)
            } else {
                flush()
                output.append(byte)
            }
        }
        flush()
        return String(decoding: output, as: UTF8.self)
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
             UInt8(ascii: "~"), UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "%"):
            true
        default: false
        }
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029, 0x5C: true
        // The bidirectional marks, embeddings, overrides and isolates, which can make a line read otherwise than
        // it is written (CVE-2021-42574, "Trojan Source").
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
