/// A JSON text this module refused: invalid syntax, invalid UTF-8, a lone surrogate, nesting past the limit, a
/// repeated member name where names must be unique, or not the kind of value asked for.
public struct JSONError: Error, Equatable, CustomStringConvertible {
    /// What was wrong, without the text itself.
    public var detail: String

    public init(detail: String) { self.detail = detail }

    public var description: String { "JSON: \(detail)" }
}
