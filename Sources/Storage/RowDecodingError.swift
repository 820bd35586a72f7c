/// A row that cannot be read as asked, on either engine: a column that is not in the result, or a value that does
/// not decode to the type asked for. It is the caller's mistake or a schema it does not expect, not the engine's.
public struct RowDecodingError: Error, Equatable, CustomStringConvertible {
    /// What was asked of the row, e.g. `column 2 cannot be read as Int`.
    public let message: String
    /// The statement the row came from, when the engine keeps it (SQLite does, a PostgreSQL result does not).
    public let sql: String?

    public init(_ message: String, sql: String?) {
        self.message = message
        self.sql = sql
    }

    public var description: String {
        var text = "cannot read a database row: \(message)"
        if let sql { text += " (while executing `\(sql)`)" }
        return text
    }
}
