/// One statement for either engine: SQL with `?` placeholders, and the values bound to them in order.
///
/// Write it in the SQL both engines speak (`INSERT … ON CONFLICT … DO …`, `RETURNING`, `CASE`, sub-selects);
/// PostgreSQL receives `$1`, `$2`, … in place of the `?`s, and each engine stores the values its own way
/// (`DatabaseValue`). Values are always bound, never written into the text.
package struct SQL: Sendable, Equatable {
    package var text: String
    package var arguments: [DatabaseValue]

    package init(_ text: String, _ arguments: [any DatabaseValueConvertible] = []) {
        self.text = text
        self.arguments = arguments.map(\.databaseValue)
    }

    /// `text` on one line, each run of white space (line breaks included) one space: how an error shows the SQL
    /// that failed, so a log line stays one line. Found by an audit: a statement written over five lines logged as
    /// five, four of them without a time or a level.
    package static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}

/// What one statement of a write gave back: the rows of a `SELECT` or a `RETURNING` clause, and how many rows an
/// `INSERT`, `UPDATE` or `DELETE` changed.
package struct SQLResult: Sendable {
    enum Rows: Sendable {
        case postgres(PGResult)
        case values(RowValues)
    }

    let rows: Rows
    /// Rows inserted, updated or deleted by the statement.
    package let changes: Int

    /// How many rows there are.
    package var count: Int {
        switch rows {
        case .postgres(let result): result.rowCount
        case .values(let values): values.rows.count
        }
    }

    /// Each row through `transform`.
    package func map<T>(_ transform: (Row) throws -> T) throws -> [T] {
        try (0..<count).map { try transform(row($0)) }
    }

    /// The first row through `transform`, or nil when there is none.
    package func first<T>(_ transform: (Row) throws -> T) throws -> T? {
        count > 0 ? try transform(row(0)) : nil
    }

    private func row(_ index: Int) -> Row {
        switch rows {
        case .postgres(let result): Row(result: result, row: index)
        case .values(let values): Row(values: values, row: index)
        }
    }
}

/// Rows copied out of a SQLite statement, which cannot outlive its step.
final class RowValues: Sendable {
    let columns: [String]
    let rows: [[DatabaseValue]]

    /// No rows: what most writes give back, shared.
    static let none = RowValues(columns: [], rows: [])

    init(columns: [String], rows: [[DatabaseValue]]) {
        self.columns = columns
        self.rows = rows
    }
}
