import Logging
import Storage

/// The schema of siwa-server, as ordered migrations for both engines. On SQLite dates are INTEGER milliseconds
/// since 1970, UUIDs lowercase TEXT, hashes and encrypted tokens BLOBs (see `DatabaseValue`); on PostgreSQL they
/// are `timestamptz`, `uuid` and `bytea` (`PostgresSchema`).
package enum AppMigrations {
    /// Every migration this build knows, in order.
    package static var migrator: Migrator {
        var migrator = Migrator()
        migrator.register(version: 1, name: "create users and tokens", postgres: PostgresSchema.usersAndTokens,
                          CreateUsersAndTokens.migrate)
        migrator.register(version: 2, name: "create sessions", postgres: PostgresSchema.sessions, CreateSessions.migrate)
        migrator.register(version: 3, name: "create apple tokens", postgres: PostgresSchema.appleTokens,
                          CreateAppleTokens.migrate)
        migrator.register(version: 4, name: "create sign-in support tables", postgres: PostgresSchema.signInSupport,
                          CreateSignInSupport.migrate)
        migrator.register(version: 5, name: "add email forwarding state", postgres: PostgresSchema.emailForwarding,
                          AddEmailForwarding.migrate)
        migrator.register(version: 6, name: "key bearer tokens by id", postgres: [], KeyTokensByID.migrate)
        migrator.register(version: 7, name: "drop web-flow states", postgres: [], DropWebFlowStates.migrate)
        migrator.register(version: 8, name: "create used nonces", postgres: PostgresSchema.usedNonces,
                          CreateUsedNonces.migrate)
        return migrator
    }

    /// Opens the database at `path` and applies the migrations it lacks.
    ///
    /// - Throws: `MigrationError` (`.databaseIsNewer`) when the file was migrated by a newer build;
    ///   `SQLiteError` when it cannot be opened.
    package static func openAndMigrate(
        path: String, configuration: DatabaseConfiguration = DatabaseConfiguration()
    ) async throws -> DatabasePool {
        let pool = try DatabasePool(path: path, configuration: configuration)
        try await migrator.migrate(pool)
        return pool
    }

    /// How long start-up waits for PostgreSQL to answer before it gives up (a database restarting beside the
    /// server, or started with it).
    package static let postgresStartupTimeout: Duration = .seconds(30)

    /// The configured database, migrated: PostgreSQL when `DATABASE_URL` is set, after waiting up to
    /// `postgresStartupTimeout` for it to answer; the SQLite file otherwise, committing the writes of each event-loop
    /// iteration at its end.
    /// - Throws: `PostgresError` naming host and port when PostgreSQL did not answer in time.
    package static func openAndMigrate(_ configuration: Configuration, logger: Logger) async throws -> any DatabaseClient {
        guard let url = configuration.databaseURL else {
            return try await openAndMigrate(
                path: configuration.databasePath,
                configuration: DatabaseConfiguration(
                    synchronous: configuration.databaseSynchronous,
                    busyTimeoutMilliseconds: configuration.databaseBusyTimeoutMilliseconds,
                    cacheSizeKiB: configuration.databaseCacheKiB, roundExecutor: EventLoopRounds()))
        }
        let pool = try PostgresPool(url: url, size: configuration.databasePoolSize)
        do {
            try await pool.waitUntilAvailable(timeout: postgresStartupTimeout)
        } catch let error as PostgresError {
            throw PostgresError.connection("PostgreSQL at \(url.host):\(url.port) did not answer within "
                + "\(postgresStartupTimeout): \(error.message)")
        }
        let applied = try await migrator.migrate(pool)
        if !applied.isEmpty { logger.notice("PostgreSQL \(url) migrated", metadata: ["versions": "\(applied)"]) }
        return pool
    }
}
