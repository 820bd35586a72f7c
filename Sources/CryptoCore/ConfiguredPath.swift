/// How a message names a file whose path the operator configured (a key, a certificate): the path as given, unless
/// the value looks like the file's content pasted where its path belongs, a key's text most of all, which no
/// message or log line may repeat. Found by a review: a `.p8` put into `APPLE_PRIVATE_KEY_PATH`, as hosting guides
/// pass keys by value, came back whole in the start-up error and in `siwa doctor`.
package enum ConfiguredPath {
    /// What a message says instead of a value that is not shown.
    package static let withheld = "the value given (not shown: it looks like a key's text, not a path to a file)"

    /// Values of at least this many base64 characters that begin as DER does in base64 (`MI`, a SEQUENCE) are taken
    /// for a key's text without its PEM lines.
    package static let encodedKeyLength = 40

    /// `value` as a message may name it: itself, or `withheld` when it holds a PEM boundary (`-----`), a control
    /// character (a line break), or is `encodedKeyLength` or more base64 characters beginning with `MI`.
    package static func named(_ value: String) -> String {
        if value.contains("-----") || value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return withheld
        }
        guard value.hasPrefix("MI"), value.utf8.count >= encodedKeyLength else { return value }
        let base64 = value.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="),
                 UInt8(ascii: "-"), UInt8(ascii: "_"):
                true
            default: false
            }
        }
        return base64 ? withheld : value
    }
}
