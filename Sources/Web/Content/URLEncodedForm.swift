/// Parses `application/x-www-form-urlencoded` text (WHATWG URL §5.1): `&`-separated `name=value` pairs,
/// `+` as space, strict percent-decoding.
enum URLEncodedForm {
    struct MalformedError: Error, Equatable {}

    /// The pairs in order; a pair without `=` has an empty value; empty pieces are skipped.
    /// `&` and `=` are found as bytes, as the spec reads them: a combining mark after one does not hide it.
    static func parse(_ text: Substring) throws(MalformedError) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        let utf8 = text.utf8
        for piece in utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let name: Substring, value: Substring
            if let equals = piece.firstIndex(of: UInt8(ascii: "=")) {
                name = text[piece.startIndex..<equals]
                value = text[utf8.index(after: equals)..<piece.endIndex]
            } else {
                name = text[piece.startIndex..<piece.endIndex]
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
