/// Writes text as a JavaScript string literal that is safe inside an HTML `<script>` element.
package enum ScriptEscaping {
    /// `text` in double quotes, with quotes, backslashes and control characters escaped, and `<`, `>`, `&`,
    /// U+2028 and U+2029 written as `\uXXXX`, so the literal can never end the script element or open a comment.
    /// The result goes into a template unescaped (`{{{ }}}`): HTML escaping does not apply inside `<script>`.
    package static func stringLiteral(_ text: String) -> String {
        let escaped = HTMLEscaping.replacingScalars(in: text) { scalar in
            switch scalar {
            case "\"": "\\\""
            case "\\": "\\\\"
            case "\n": "\\n"
            case "\r": "\\r"
            case "\t": "\\t"
            case "<", ">", "&", "\u{2028}", "\u{2029}", "\u{0}"..."\u{1F}", "\u{7F}": "\\u" + hex4(scalar.value)
            default: nil
            }
        }
        return "\"" + escaped + "\""
    }

    private static func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
