/// Parses `Cookie` request headers (RFC 6265 §5.4, §4.2.1): `name=value` pairs separated by `;`.
enum CookieParser {
    /// Name to value; for duplicate names the first wins (the most specific path comes first, §5.4 step 2).
    /// Pieces without `=` or with an empty name are skipped; a value in double quotes is unquoted (§4.1.1).
    static func parse(_ headers: [String]) -> [String: String] {
        var cookies: [String: String] = [:]
        for header in headers {
            for piece in header.split(separator: ";") {
                guard let equals = piece.firstIndex(of: "=") else { continue }
                let name = trim(piece[..<equals])
                var value = trim(piece[piece.index(after: equals)...])
                guard !name.isEmpty, cookies[String(name)] == nil else { continue }
                if value.count >= 2, value.first == "\"", value.last == "\"" {
                    value = value.dropFirst().dropLast()
                }
                cookies[String(name)] = String(value)
            }
        }
        return cookies
    }

    private static func trim(_ text: Substring) -> Substring {
        var text = text
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
