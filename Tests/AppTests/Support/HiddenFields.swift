import Foundation

/// The hidden fields of an auto-submitting form (Apple's `form_post` page, the hand-off page), unescaped, as the
/// browser posts them.
enum HiddenFields {
    static func parse(_ html: String) -> [(String, String)] {
        html.components(separatedBy: "<input type=\"hidden\" name=\"").dropFirst().compactMap { input in
            let name = input.prefix { $0 != "\"" }
            guard let valueStart = input.range(of: "value=\"") else { return nil }
            let value = input[valueStart.upperBound...].prefix { $0 != "\"" }
            return (unescape(String(name)), unescape(String(value)))
        }
    }

    /// The inverse of `HTMLEscaping.escape` (`& < > " '`); `&amp;` last, so `&amp;lt;` stays `&lt;`.
    static func unescape(_ text: String) -> String {
        [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&amp;", "&")].reduce(text) {
            $0.replacingOccurrences(of: $1.0, with: $1.1)
        }
    }

    /// The `action` of the page's form.
    static func action(_ html: String) -> String? {
        guard let start = html.range(of: "action=\"") else { return nil }
        return unescape(String(html[start.upperBound...].prefix { $0 != "\"" }))
    }
}
