import CSQLite

/// A prepared statement: owns one `sqlite3_stmt` and finalizes it in `deinit`.
///
/// A statement belongs to the `Database` that prepared it and, like it, is used by one thread at a time.
/// Values are only ever bound through `?` parameters; SQL is never assembled from values.
package final class Statement {
    let handle: OpaquePointer  // sqlite3_stmt *
    /// The SQL text this statement was prepared from.
    package let sql: String
    private lazy var columnIndexes: [String: Int32] = {
        var indexes: [String: Int32] = [:]
        for index in 0..<sqlite3_column_count(handle) {
            if let name = sqlite3_column_name(handle, index) {
                let key = String(cString: name).lowercased()
                if indexes[key] == nil { indexes[key] = index }
            }
        }
        return indexes
    }()

    /// Prepares `sql`, which must hold exactly one statement.
    init(connection: OpaquePointer, sql: String, persistent: Bool) throws {
        var statement: OpaquePointer?
        var hasTrailingSQL = false
        let code = sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v3(connection, text, -1, persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0,
                                          &statement, &tail)
            // `tail` points into `text`: read it before the buffer goes away.
            hasTrailingSQL = tail.map { String(cString: $0).contains { !$0.isWhitespace && $0 != ";" } } ?? false
            return code
        }
        guard code == SQLITE_OK, let statement else {
            throw SQLiteError(code: code, connection: connection, sql: sql)
        }
        guard !hasTrailingSQL else {
            sqlite3_finalize(statement)
            throw SQLiteError.misuse("a statement must hold exactly one SQL statement", sql: sql)
        }
        self.handle = statement
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// The number of `?` parameters.
    package var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }

    /// Resets the statement and binds `arguments` to its parameters, in order.
    ///
    /// - Throws: `SQLiteError` when the number of arguments does not match the number of parameters.
    package func bind(_ arguments: [any DatabaseValueConvertible]) throws {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        guard arguments.count == parameterCount else {
            throw SQLiteError.misuse(
                "expected \(parameterCount) arguments, got \(arguments.count)", sql: sql, code: SQLITE_RANGE)
        }
        for (offset, argument) in arguments.enumerated() {
            try bind(argument.databaseValue, at: Int32(offset + 1))
        }
    }

    private func bind(_ value: DatabaseValue, at index: Int32) throws {
        let code: Int32
        switch value {
        case .null:
            code = sqlite3_bind_null(handle, index)
        case .integer(let v):
            code = sqlite3_bind_int64(handle, index, v)
        case .real(let v):
            code = sqlite3_bind_double(handle, index, v)
        case .text(var v):
            code = v.withUTF8 { bytes in
                // An empty buffer may have no base address; SQLite would read that as NULL, not "".
                guard let base = bytes.baseAddress, !bytes.isEmpty else {
                    return sqlite3_bind_text(handle, index, "", 0, csqlite_transient())
                }
                return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    sqlite3_bind_text(handle, index, $0, Int32(bytes.count), csqlite_transient())
                }
            }
        case .blob(let v):
            code = v.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress, !bytes.isEmpty else {
                    return sqlite3_bind_zeroblob(handle, index, 0)
                }
                return sqlite3_bind_blob(handle, index, base, Int32(bytes.count), csqlite_transient())
            }
        case .bool, .uuid, .timestamp:
            return try bind(value.sqliteStorageClass, at: index)
        }
        guard code == SQLITE_OK else {
            throw SQLiteError(code: code, connection: sqlite3_db_handle(handle), sql: sql)
        }
    }

    /// Advances to the next row.
    ///
    /// - Returns: true when a row is available, false when the statement is done.
    package func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code:
            let error = SQLiteError(code: code, connection: sqlite3_db_handle(handle), sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Resets the statement so it releases its read snapshot and can run again.
    package func reset() {
        sqlite3_reset(handle)
    }

    /// Binds `arguments` and runs the statement to completion, ignoring any rows.
    package func execute(_ arguments: [any DatabaseValueConvertible] = []) throws {
        try bind(arguments)
        defer { reset() }
        while try step() {}
    }

    /// Binds `arguments` and maps every row with `transform`.
    package func fetchAll<T>(_ arguments: [any DatabaseValueConvertible] = [], _ transform: (Row) throws -> T) throws -> [T] {
        try bind(arguments)
        defer { reset() }
        var results: [T] = []
        while try step() { results.append(try transform(Row(statement: self))) }
        return results
    }

    /// Binds `arguments` and maps the first row with `transform`, or returns nil when there is none.
    package func fetchOne<T>(_ arguments: [any DatabaseValueConvertible] = [], _ transform: (Row) throws -> T) throws -> T? {
        try bind(arguments)
        defer { reset() }
        return try step() ? transform(Row(statement: self)) : nil
    }

    /// The number of result columns.
    package var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// Whether the statement changes nothing (`sqlite3_stmt_readonly`): a `SELECT`.
    var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }

    /// The names of the result columns, read once per prepared statement (a cached statement serves many calls).
    private(set) lazy var columnNames: [String] = (0..<sqlite3_column_count(handle)).map { index in
        sqlite3_column_name(handle, index).map { String(cString: $0) } ?? ""
    }

    /// The index of the result column called `name` (case-insensitive), if any.
    func columnIndex(named name: String) -> Int32? { columnIndexes[name.lowercased()] }

    /// The value of column `index` in the current row.
    func value(at index: Int32) -> DatabaseValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(handle, index))
            guard let text = sqlite3_column_text(handle, index) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, index))
            guard let blob = sqlite3_column_blob(handle, index), count > 0 else { return .blob([]) }
            return .blob([UInt8](UnsafeRawBufferPointer(start: blob, count: count)))
        default:
            return .null
        }
    }
}
