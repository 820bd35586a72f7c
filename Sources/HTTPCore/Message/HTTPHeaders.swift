/// An ordered list of header fields with case-insensitive lookup (RFC 9110 §5.1).
///
/// Field order and duplicates are preserved exactly as received or added, so no header is lost.
package struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    package typealias Field = (name: String, value: String)
    private var fields: [Field]

    package init() { fields = [] }

    package init(_ fields: [Field]) { self.fields = fields }

    package init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// The first value of the field named `name`, compared case-insensitively.
    package subscript(name: String) -> String? {
        for field in fields where Self.equalsIgnoringCase(field.name, name) { return field.value }
        return nil
    }

    /// Every value of the field named `name`, in order.
    package func values(for name: String) -> [String] {
        fields.filter { Self.equalsIgnoringCase($0.name, name) }.map(\.value)
    }

    /// A field named twice where it is not a list (RFC 9110 §5.3): which copy counts is ambiguous.
    package struct RepeatedField: Error, Equatable {
        package let name: String
    }

    /// The value of the one field named `name`, or nil when there is none, in one pass over the fields.
    /// - Throws: `RepeatedField` when there is more than one.
    package func onlyValue(for name: String) throws(RepeatedField) -> String? {
        var found: String?
        for field in fields where Self.equalsIgnoringCase(field.name, name) {
            guard found == nil else { throw RepeatedField(name: name) }
            found = field.value
        }
        return found
    }

    package func contains(_ name: String) -> Bool { self[name] != nil }

    /// Appends a field, keeping any existing ones with the same name (e.g. `Set-Cookie`).
    package mutating func add(name: String, value: String) { fields.append((name: name, value: value)) }

    /// Removes every field named `name`, then appends one with `value`.
    package mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        fields.append((name: name, value: value))
    }

    package mutating func remove(name: String) {
        fields.removeAll { Self.equalsIgnoringCase($0.name, name) }
    }

    package var count: Int { fields.count }
    package var isEmpty: Bool { fields.isEmpty }

    package func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    package var description: String { fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n") }

    /// ASCII case-insensitive comparison; header names are ASCII tokens (RFC 9110 §5.1).
    package static func equalsIgnoringCase(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { ua in
            b.withUTF8 { ub in
                guard ua.count == ub.count else { return false }
                for i in 0..<ua.count where ua[i] != ub[i] {
                    let x = ua[i] | 0x20
                    guard x == ub[i] | 0x20, x >= 0x61, x <= 0x7A else { return false }
                }
                return true
            }
        }
    }
}
