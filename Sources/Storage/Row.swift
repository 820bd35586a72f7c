import CSQLite

/// One row of a result, valid only inside the closure it is handed to: the current row of a SQLite `Statement`, or
/// one row of a PostgreSQL result.
///
/// Columns are read by index (from 0) or by name (case-insensitive), decoded to the requested type:
/// `let name: String = try row["name"]`, `let email: String? = try row[2]`.
public struct Row {
    enum Source {
        case sqlite(Statement)
        case postgres(PGResult, row: Int)
        case values(RowValues, row: Int)
    }

    let source: Source

    init(statement: Statement) { source = .sqlite(statement) }
    init(result: PGResult, row: Int) { source = .postgres(result, row: row) }
    init(values: RowValues, row: Int) { source = .values(values, row: row) }

    /// The number of columns.
    public var count: Int {
        switch source {
        case .sqlite(let statement): statement.columnCount
        case .postgres(let result, _): result.columnCount
        case .values(let values, _): values.columns.count
        }
    }

    /// The SQL the row came from, for errors (PostgreSQL results do not keep it).
    var sql: String? {
        if case .sqlite(let statement) = source { return statement.sql }
        return nil
    }

    /// The raw value of column `index`.
    public func value(at index: Int) throws -> DatabaseValue {
        guard index >= 0, index < count else { throw RowDecodingError("no column at index \(index)", sql: sql) }
        switch source {
        case .sqlite(let statement): return statement.value(at: Int32(index))
        case .postgres(let result, let row): return try result.value(row: row, column: index)
        case .values(let values, let row): return values.rows[row][index]
        }
    }

    /// The raw value of the column called `name`.
    public func value(named name: String) throws -> DatabaseValue {
        switch source {
        case .sqlite(let statement):
            guard let index = statement.columnIndex(named: name) else {
                throw RowDecodingError("no column named \(name)", sql: statement.sql)
            }
            return statement.value(at: index)
        case .postgres(let result, let row):
            guard let index = result.columnIndex(named: name) else {
                throw RowDecodingError("no column named \(name)", sql: nil)
            }
            return try result.value(row: row, column: index)
        case .values(let values, let row):
            let wanted = name.lowercased()
            guard let index = values.columns.firstIndex(where: { $0.lowercased() == wanted }) else {
                throw RowDecodingError("no column named \(name)", sql: nil)
            }
            return values.rows[row][index]
        }
    }

    /// Column `index`, decoded as `T`.
    ///
    /// - Throws: `RowDecodingError` when the stored value cannot be read as `T`.
    /// Inlinable, so callers in other modules decode with `T` known (no generic metadata looked up per column).
    @inlinable
    public subscript<T: DatabaseValueConvertible>(_ index: Int) -> T {
        get throws {
            guard let decoded = T.fromDatabaseValue(try value(at: index)) else {
                throw mismatch(column: String(index), type: T.self)
            }
            return decoded
        }
    }

    /// The column called `name`, decoded as `T`.
    @inlinable
    public subscript<T: DatabaseValueConvertible>(_ name: String) -> T {
        get throws {
            guard let decoded = T.fromDatabaseValue(try value(named: name)) else {
                throw mismatch(column: name, type: T.self)
            }
            return decoded
        }
    }

    @usableFromInline
    func mismatch(column: String, type: Any.Type) -> RowDecodingError {
        RowDecodingError("column \(column) cannot be read as \(type)", sql: sql)
    }
}
