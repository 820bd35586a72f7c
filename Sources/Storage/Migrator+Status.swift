extension Migrator {
    /// How far a database's schema is from this migrator's, read without writing anything.
    public struct Status: Sendable, Equatable {
        /// Versions recorded in the database, oldest first.
        public var applied: [Int]
        /// Known versions the database lacks: what `migrate` would apply.
        public var pending: [Int]
        /// Versions the database records that this migrator does not know (a newer build wrote it).
        public var unknown: [Int]

        /// Whether the database is exactly at this migrator's version.
        public var isCurrent: Bool { pending.isEmpty && unknown.isEmpty }
    }

    /// The status of `database`; unlike `appliedMigrations` it never creates `schema_migrations`, so it works on
    /// a read-only connection and changes nothing (a database without the table has every migration pending).
    public func status(_ database: Database) throws -> Status {
        let hasTable = try database.fetchOne(
            sql: "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations'"
        ) { _ in true } ?? false
        let applied = hasTable
            ? try database.fetchAll(sql: "SELECT version FROM schema_migrations ORDER BY version") { row -> Int in
                try row[0]
            }
            : []
        let known = migrations.map(\.version)
        return Status(applied: applied, pending: known.filter { !applied.contains($0) },
                      unknown: applied.filter { !known.contains($0) })
    }
}
