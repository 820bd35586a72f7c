/// Parses `application/x-www-form-urlencoded` text (WHATWG URL §5.1): `&`-separated `name=value` pairs,
/// `+` as space, strict percent-decoding.
enum URLEncodedForm {
    struct MalformedError: Error, Equatable {}

    /// The pairs in order; a pair without `=` has an empty value; empty pieces are skipped.
    static func parse(_ text: Substring) throws(MalformedError) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        for piece in text.split(separator: "&", omittingEmptySubsequences: true) {
            let name: Substring, value: Substring
            if let equals = piece.firstIndex(of: "=") {
                name = piece[..<equals]
                value = piece[piece.index(after: equals)...]
            } else {
                name = piece
                value = ""
            }
            do {
                pairs.append((try PercentDecoding.decode(name, plusAsSpace: true),
                              try PercentDecoding.decode(value, plusAsSpace: true)))
            } catch {
                throw MalformedError()
            }
        }
        return pairs
    }

    /// The first value for each name, as the form decoder reads it.
    static func dictionary(_ pairs: [(name: String, value: String)]) -> [String: String] {
        var result: [String: String] = [:]
        for pair in pairs where result[pair.name] == nil { result[pair.name] = pair.value }
        return result
    }
}
