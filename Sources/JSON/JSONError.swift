/// A JSON text this module refused: invalid syntax, invalid UTF-8, a lone surrogate, nesting past the limit, a
/// repeated member name where names must be unique, or not the kind of value asked for.
package struct JSONError: Error, Equatable, CustomStringConvertible {
    /// What was wrong, without the text itself.
    package var detail: String

    package init(detail: String) { self.detail = detail }

    package var description: String { "JSON: \(detail)" }
}
