import Glibc
import JSON

extension JSONValue {
    /// The string this value is, when it can be stored as text: not one holding U+0000, which PostgreSQL's `text`
    /// refuses and SQLite keeps. An identifier, address or id from Apple's side with one is refused, on both engines
    /// alike. Found by a review: an identity token's email with a NUL signed in on SQLite and was a 500 on PostgreSQL.
    var storableString: String? {
        guard let string = stringValue, !string.holdsNUL else { return nil }
        return string
    }
}

extension String {
    /// Whether the text holds U+0000, the only character whose UTF-8 has a zero byte (looked for with `memchr`).
    var holdsNUL: Bool {
        var text = self
        return text.withUTF8 { bytes in
            guard let start = bytes.baseAddress else { return false }
            return memchr(start, 0, bytes.count) != nil
        }
    }
}
