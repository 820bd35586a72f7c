import Foundation

/// Applies versioned migrations in order, each in its own transaction, recording them in `schema_migrations`
/// (version, name, applied_at as INTEGER milliseconds).
///
/// Refuses a database that records a version it does not know (`MigrationError.Reason.databaseIsNewer`),
/// so an older build never runs against a schema it does not understand.
package struct Migrator: Sendable {
    /// The registered migrations, in version order.
    package private(set) var migrations: [Migration] = []

    package init() {}

    /// Adds a migration; `version` must be greater than every version registered before it.
    /// - Parameters:
    ///   - body: the change on a SQLite connection, inside the migration's transaction.
    ///   - postgres: the same change for PostgreSQL, one statement each (empty when PostgreSQL needs none), or nil
    ///     for a migrator that only ever runs on SQLite.
    package mutating func register(version: Int, name: String, postgres: [String]? = nil,
                                  _ body: @escaping @Sendable (Database) throws -> Void) {
        precondition(migrations.last.map { $0.version < version } ?? true, "migration versions must increase")
        migrations.append(Migration(version: version, name: name, body: body, postgres: postgres))
    }

    /// Adds a migration whose SQLite change is one script (`Database.executeScript`); see the other `register`.
    package mutating func register(version: Int, name: String, sqlite script: String, postgres: [String]) {
        register(version: version, name: name, postgres: postgres) { try $0.executeScript(script) }
    }

    /// The migrations recorded in `database`, oldest first (none for a new database).
    package func appliedMigrations(_ database: Database) throws -> [AppliedMigration] {
        try createTable(database)
        return try database.fetchAll(sql: "SELECT version, name, applied_at FROM schema_migrations ORDER BY version") {
            AppliedMigration(version: try $0[0], name: try $0[1], appliedAt: try $0[2])
        }
    }

    /// Applies every known migration not yet applied, up to `target` when given.
    ///
    /// Each migration runs in its own `BEGIN IMMEDIATE` transaction and re-checks that it is still needed inside
    /// it, so two processes migrating at once apply each migration once.
    /// - Returns: the versions applied by this call.
    @discardableResult
    package func migrate(_ database: Database, upTo target: Int? = nil, now: Date = Date()) throws -> [Int] {
        try checkKnown(database)
        var applied: [Int] = []
        for migration in migrations where target.map({ migration.version <= $0 }) ?? true {
            let didApply = try database.transaction(.immediate) { () throws -> Bool in
                let exists = try database.fetchOne(
                    sql: "SELECT 1 FROM schema_migrations WHERE version = ?", arguments: [migration.version]
                ) { _ in true } ?? false
                if exists { return false }
                try migration.body(database)
                try database.execute(
                    sql: "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                    arguments: [migration.version, migration.name, now])
                return true
            }
            if didApply { applied.append(migration.version) }
        }
        return applied
    }

    /// `migrate(_:upTo:now:)` on the pool's writer connection.
    @discardableResult
    package func migrate(_ pool: DatabasePool, upTo target: Int? = nil, now: Date = Date()) async throws -> [Int] {
        try await pool.writeWithoutTransaction { database in try self.migrate(database, upTo: target, now: now) }
    }

    /// Throws `databaseIsNewer` when `database` records versions this migrator does not know.
    package func checkKnown(_ database: Database) throws {
        let known = Set(migrations.map(\.version))
        let unknown = try appliedMigrations(database).map(\.version).filter { !known.contains($0) }
        guard unknown.isEmpty else {
            throw MigrationError(reason: .databaseIsNewer(unknown: unknown), path: database.path)
        }
    }

    private func createTable(_ database: Database) throws {
        try database.executeScript("""
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version INTEGER PRIMARY KEY NOT NULL,
                name TEXT NOT NULL,
                applied_at INTEGER NOT NULL
            )
            """)
    }
}

extension Migrator {
    /// How far a database's schema is from this migrator's, read without writing anything.
    package struct Status: Sendable, Equatable {
        /// Versions recorded in the database, oldest first.
        package var applied: [Int]
        /// Known versions the database lacks: what `migrate` would apply.
        package var pending: [Int]
        /// Versions the database records that this migrator does not know (a newer build wrote it).
        package var unknown: [Int]

        /// Whether the database is exactly at this migrator's version.
        package var isCurrent: Bool { pending.isEmpty && unknown.isEmpty }
    }

    /// The status of `database`; unlike `appliedMigrations` it never creates `schema_migrations`, so it works on
    /// a read-only connection and changes nothing (a database without the table has every migration pending).
    package func status(_ database: Database) throws -> Status {
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
