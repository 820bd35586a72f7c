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
    func mismatch(column: String, type: Any.Type) -> SQLiteError {
        SQLiteError.misuse("column \(column) cannot be read as \(type)", sql: statement.sql, code: SQLITE_MISMATCH)
    }
}
