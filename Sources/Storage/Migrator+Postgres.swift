import Foundation

/// Migrations on PostgreSQL: the same versions as on SQLite, each in a transaction of its own, serialised across
/// processes by a transaction-level advisory lock, so N instances started at once on an empty database apply each
/// migration once and all come up.
extension Migrator {
    /// The `pg_advisory_xact_lock` key every siwa migrator takes ("siwa" in ASCII).
    package static let postgresLockKey: Int64 = 0x7369_7761

    /// Applies every known migration the database lacks, up to `target` when given.
    ///
    /// Each migration is one write: take the lock, create `schema_migrations` if needed, record the version, then
    /// the migration's statements. When another process recorded the version first, the record fails on the
    /// primary key and the write rolls back: that migration is already applied.
    /// - Returns: the versions applied by this call.
    /// - Throws: `MigrationError` (`.databaseIsNewer`) for a database a newer build migrated; `PostgresError`.
    @discardableResult
    package func migrate(_ pool: PostgresPool, upTo target: Int? = nil, now: Date = Date()) async throws -> [Int] {
        let status = try await status(pool)
        guard status.unknown.isEmpty else {
            throw MigrationError(reason: .databaseIsNewer(unknown: status.unknown), path: pool.url.description)
        }
        var applied: [Int] = []
        for migration in migrations where status.pending.contains(migration.version)
            && target.map({ migration.version <= $0 }) ?? true
        {
            guard let statements = migration.postgres else {
                throw PostgresError(sqlState: "", message: "migration \(migration.version) has no PostgreSQL statements")
            }
            do {
                try await pool.migrationWrite([
                    SQL("SELECT pg_advisory_xact_lock(?)", [Self.postgresLockKey]),
                    SQL("""
                        CREATE TABLE IF NOT EXISTS schema_migrations (
                            version bigint PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL)
                        """),
                    SQL("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                        [migration.version, migration.name, now]),
                ] + statements.map { SQL($0) })
                applied.append(migration.version)
            } catch let error as PostgresError where error.reason == .uniqueConstraint && error.statementIndex == 2 {
                continue
            }
        }
        return applied
    }

    /// How far the PostgreSQL database's schema is from this migrator's; reads only.
    package func status(_ pool: PostgresPool) async throws -> Status {
        let hasTable = try await pool.readOne(SQL("SELECT to_regclass('schema_migrations') IS NOT NULL")) {
            try $0[0] as Bool
        } ?? false
        let applied = hasTable
            ? try await pool.read(SQL("SELECT version FROM schema_migrations ORDER BY version")) { try $0[0] as Int }
            : []
        let known = migrations.map(\.version)
        return Status(applied: applied, pending: known.filter { !applied.contains($0) },
                      unknown: applied.filter { !known.contains($0) })
    }
}
