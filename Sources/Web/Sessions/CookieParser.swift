/// Parses `Cookie` request headers (RFC 6265 §5.4, §4.2.1): `name=value` pairs separated by `;`.
enum CookieParser {
    /// Name to value. A name sent more than once is left out: the server cannot tell which copy is its own, since
    /// a sibling subdomain may set a cookie of the same name (RFC 6265 §8.6) and the order the browser sends
    /// them in is no proof of origin (§5.4 step 2), so an ambiguous `SIWA_STATE` or `session` counts as none.
    /// Pieces without `=` or with an empty name are skipped; a value in double quotes is unquoted (§4.1.1).
    /// The grammar is read as bytes (§5.4): a combining mark after `;`, `=`, a blank or a quote does not hide it.
    static func parse(_ headers: [String]) -> [String: String] {
        var cookies: [String: String] = [:]
        var duplicated: Set<String> = []
        forEachPair(in: headers) { name, value in
            guard cookies[name] == nil else {
                duplicated.insert(name)
                return
            }
            cookies[name] = value
        }
        for name in duplicated { cookies[name] = nil }
        return cookies
    }

    /// Every value sent for cookie `name`, in order: one, or several when the name was sent more than once.
    static func values(named name: String, in headers: [String]) -> [String] {
        var values: [String] = []
        forEachPair(in: headers) { pairName, value in
            if pairName == name { values.append(value) }
        }
        return values
    }

    /// Calls `body` with each `name=value` pair of `headers`, in order, the value unquoted.
    private static func forEachPair(in headers: [String], _ body: (String, String) -> Void) {
        for header in headers {
            let utf8 = header.utf8
            for piece in utf8.split(separator: UInt8(ascii: ";")) {
                guard let equals = piece.firstIndex(of: UInt8(ascii: "=")) else { continue }
                let name = trim(piece[piece.startIndex..<equals])
                var value = trim(piece[utf8.index(after: equals)..<piece.endIndex])
                guard !name.isEmpty else { continue }
                if value.count >= 2, value.first == UInt8(ascii: "\""), value.last == UInt8(ascii: "\"") {
                    value = value.dropFirst().dropLast()
                }
                body(String(header[name.startIndex..<name.endIndex]), String(header[value.startIndex..<value.endIndex]))
            }
        }
    }

    private static func trim(_ bytes: Substring.UTF8View) -> Substring.UTF8View {
        var bytes = bytes
        while let first = bytes.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { bytes = bytes.dropLast() }
        return bytes
    }
}
