import CSQLite

/// The current row of a `Statement`, valid only inside the closure it is handed to.
///
/// Columns are read by index (from 0) or by name (case-insensitive), decoded to the requested type:
/// `let name: String = try row["name"]`, `let email: String? = try row[2]`.
public struct Row {
    let statement: Statement

    /// The number of columns.
    public var count: Int { statement.columnCount }

    /// The raw value of column `index`.
    public func value(at index: Int) throws -> DatabaseValue {
        guard index >= 0, index < count else {
            throw SQLiteError.misuse("no column at index \(index)", sql: statement.sql)
        }
        return statement.value(at: Int32(index))
    }

    /// The raw value of the column called `name`.
    public func value(named name: String) throws -> DatabaseValue {
        guard let index = statement.columnIndex(named: name) else {
            throw SQLiteError.misuse("no column named \(name)", sql: statement.sql)
        }
        return statement.value(at: index)
    }

    /// Column `index`, decoded as `T`.
    ///
    /// - Throws: `SQLiteError` (`SQLITE_MISMATCH`) when the stored value cannot be read as `T`.
    public subscript<T: DatabaseValueConvertible>(_ index: Int) -> T {
        get throws { try decode(value(at: index), column: index) }
    }

    /// The column called `name`, decoded as `T`.
    public subscript<T: DatabaseValueConvertible>(_ name: String) -> T {
        get throws { try decode(value(named: name), column: name) }
    }

    /// `column` (an index or a name) is turned into text only for the error.
    private func decode<T: DatabaseValueConvertible>(_ value: DatabaseValue, column: some Sendable) throws -> T {
        guard let decoded = T.fromDatabaseValue(value) else {
            throw SQLiteError.misuse(
                "column \(column) cannot be read as \(T.self)", sql: statement.sql, code: SQLITE_MISMATCH)
        }
        return decoded
    }
}
