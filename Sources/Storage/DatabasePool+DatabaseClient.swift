/// SQLite behind `DatabaseClient`: a write is one group-committed job on the writer (its statements inside the
/// job's savepoint, so they commit together or not at all), a read one closure on a reader connection.
extension DatabasePool: DatabaseClient {
    package var engine: DatabaseEngine { .sqlite }

    package func write(_ statements: [SQL], urgency: WriteUrgency) async throws -> [SQLResult] {
        try await write(urgency: urgency) { db in try statements.enumerated().map { try Self.run($1, at: $0, on: db) } }
    }

    package func read<T: Sendable>(_ statement: SQL, _ transform: @escaping @Sendable (Row) throws -> T) async throws
        -> [T]
    {
        try await read { db in try db.fetchAll(sql: statement.text, arguments: statement.arguments, transform) }
    }

    package func readInline<T: Sendable>(_ statement: SQL, _ transform: @escaping @Sendable (Row) throws -> T)
        async throws -> [T]
    {
        try await readInline { db in try db.fetchAll(sql: statement.text, arguments: statement.arguments, transform) }
    }

    package func takesWrites() async -> Bool {
        guard writer.fileWatch.check() == nil else { return false }
        return (try? await read(SQL("SELECT 1")) { try $0[0] as Int }) == [1]
    }

    /// Runs one statement of a write and copies out its rows (a statement's rows do not outlive its step).
    private static func run(_ statement: SQL, at index: Int, on db: Database) throws -> SQLResult {
        do {
            let prepared = try db.cachedStatement(sql: statement.text)
            let rows = try prepared.fetchAll(statement.arguments) { row -> [DatabaseValue] in
                try (0..<row.count).map { try row.value(at: $0) }
            }
            let values = rows.isEmpty ? RowValues.none : RowValues(columns: prepared.columnNames, rows: rows)
            return SQLResult(rows: .values(values), changes: prepared.isReadOnly ? 0 : db.changes)
        } catch var error as SQLiteError {
            error.statementIndex = index
            throw error
        }
    }
}
