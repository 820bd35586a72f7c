import Synchronization

/// `?` placeholders rewritten as PostgreSQL's `$1`, `$2`, …, outside string literals, quoted identifiers and
/// comments; each distinct text is rewritten once and remembered (statements are a fixed set of literals).
final class PostgresPlaceholders: Sendable {
    /// The most distinct texts remembered; past it, texts are rewritten every time.
    static let capacity = 1_024
    private let cache = Mutex<[String: String]>([:])

    func rewrite(_ text: String) -> String {
        if let known = cache.withLock({ $0[text] }) { return known }
        let rewritten = Self.rewrite(text)
        cache.withLock { cache in
            if cache.count < Self.capacity { cache[text] = rewritten }
        }
        return rewritten
    }

    static func rewrite(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        var number = 0
        var quote: Character?
        var lineComment = false
        var previous: Character?
        for character in text {
            if lineComment {
                if character == "\n" { lineComment = false }
            } else if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "-", previous == "-" {
                lineComment = true
            } else if character == "?" {
                number += 1
                out += "$\(number)"
                previous = character
                continue
            }
            out.append(character)
            previous = character
        }
        return out
    }
}
