import Foundation
import IOCore

/// Migrations on PostgreSQL: the same versions as on SQLite, each in a transaction of its own, serialised across
/// processes by a transaction-level advisory lock, so N instances started at once on an empty database apply each
/// migration once and all come up.
extension Migrator {
    /// The `pg_advisory_xact_lock` key every siwa migrator takes ("siwa" in ASCII).
    package static let postgresLockKey: Int64 = 0x7369_7761
    /// How long one attempt at a migration waits for a table's lock (`lock_timeout`) before it rolls back and tries
    /// again. A migration's `ALTER TABLE` queued behind a long reader (a `pg_dump`, a report) holds every other
    /// statement on that table behind it, so the running instances' requests would wait with it: each attempt
    /// holds them at most this long. Found by a review: a 30 s read made the previous build's instances answer
    /// every request 503 for its whole length, their `/ready` still 200.
    package static let postgresLockTimeout: Duration = .seconds(2)
    /// The pause after an attempt that found a lock held, growing by this much per attempt up to
    /// `postgresLockRetryPauseLimit`: the requests queued behind the attempt run meanwhile.
    package static let postgresLockRetryPause: Duration = .milliseconds(500)
    package static let postgresLockRetryPauseLimit: Duration = .seconds(5)

    /// Applies every known migration the database lacks, up to `target` when given.
    ///
    /// Each migration is one write: take the lock, create `schema_migrations` if needed, record the version, then
    /// the migration's statements. When another process recorded the version first, the record fails on the
    /// primary key and the write rolls back: that migration is already applied. A table lock not had within
    /// `postgresLockTimeout` rolls the attempt back, and it is tried again after a pause, until
    /// `PostgresPool.migrationTimeout`; `waiting` hears of each such attempt (the version, and how many so far).
    /// - Returns: the versions applied by this call.
    /// - Throws: `MigrationError` (`.databaseIsNewer`) for a database a newer build migrated; `PostgresError`.
    @discardableResult
    package func migrate(_ pool: PostgresPool, upTo target: Int? = nil, now: Date = Date(),
                         waiting: @Sendable (_ version: Int, _ attempts: Int) -> Void = { _, _ in }) async throws
        -> [Int]
    {
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
            let lockTimeout = Int(MonotonicClock.nanoseconds(Self.postgresLockTimeout) / 1_000_000)
            let deadline = ContinuousClock.now + PostgresPool.migrationTimeout
            var attempts = 0
            while true {
                do {
                    try await pool.migrationWrite([
                        // Waiting for another instance's migration is not a table lock: no lock_timeout yet.
                        SQL("SELECT pg_advisory_xact_lock(?)", [Self.postgresLockKey]),
                        SQL("SELECT set_config('lock_timeout', ?, true)", ["\(lockTimeout)"]),
                        SQL("""
                            CREATE TABLE IF NOT EXISTS schema_migrations (
                                version bigint PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL)
                            """),
                        SQL("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                            [migration.version, migration.name, now]),
                    ] + statements.map { SQL($0) })
                    applied.append(migration.version)
                } catch let error as PostgresError
                    where error.reason == .uniqueConstraint && error.statementIndex == 3 {
                    // Another process applied it first.
                } catch let error as PostgresError
                    where error.sqlState == Self.lockNotAvailable && ContinuousClock.now < deadline {
                    attempts += 1
                    waiting(migration.version, attempts)
                    try await Task.sleep(for: min(Self.postgresLockRetryPause * attempts,
                                                  Self.postgresLockRetryPauseLimit))
                    continue
                }
                break
            }
        }
        return applied
    }

    /// `lock_not_available`: `lock_timeout` ended a statement's wait for a lock.
    static let lockNotAvailable = "55P03"

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
