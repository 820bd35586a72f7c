/// Escapes text for HTML content and attribute values (`& < > " '`).
package enum HTMLEscaping {
    package static func escape(_ text: String) -> String {
        replacingScalars(in: text) { scalar in
            switch scalar {
            case "&": "&amp;"
            case "<": "&lt;"
            case ">": "&gt;"
            case "\"": "&quot;"
            case "'": "&#39;"
            default: nil
            }
        }
    }

    /// `text` with every scalar for which `replacement` returns a string replaced by that string; the loop every
    /// escaping here shares.
    package static func replacingScalars(in text: String, _ replacement: (Unicode.Scalar) -> String?) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if let replaced = replacement(scalar) {
                result += replaced
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
