import Glibc
import IOCore
import Logging
import Storage
import Web

/// The schema of siwa-server, as ordered migrations for both engines: each version's SQLite script
/// (`SQLiteSchema`) and PostgreSQL statements (`PostgresSchema`).
package enum AppMigrations {
    /// Every migration this build knows, in order.
    package static var migrator: Migrator {
        var migrator = Migrator()
        migrator.register(version: 1, name: "create users and tokens", sqlite: SQLiteSchema.usersAndTokens,
                          postgres: PostgresSchema.usersAndTokens)
        migrator.register(version: 2, name: "create sessions", sqlite: SQLiteSchema.sessions,
                          postgres: PostgresSchema.sessions)
        migrator.register(version: 3, name: "create apple tokens", sqlite: SQLiteSchema.appleTokens,
                          postgres: PostgresSchema.appleTokens)
        migrator.register(version: 4, name: "create sign-in support tables", sqlite: SQLiteSchema.signInSupport,
                          postgres: PostgresSchema.signInSupport)
        migrator.register(version: 5, name: "add email forwarding state", sqlite: SQLiteSchema.emailForwarding,
                          postgres: PostgresSchema.emailForwarding)
        migrator.register(version: 6, name: "key bearer tokens by id", sqlite: SQLiteSchema.tokensByID, postgres: [])
        migrator.register(version: 7, name: "drop web-flow states", sqlite: SQLiteSchema.dropWebFlowStates, postgres: [])
        migrator.register(version: 8, name: "create used nonces", sqlite: SQLiteSchema.usedNonces,
                          postgres: PostgresSchema.usedNonces)
        migrator.register(version: 9, name: "track Apple chores", sqlite: SQLiteSchema.appleChores,
                          postgres: PostgresSchema.appleChores)
        migrator.register(version: 10, name: "record shared settings", sqlite: SQLiteSchema.sharedSettings,
                          postgres: PostgresSchema.sharedSettings)
        migrator.register(version: 11, name: "record Apple team transfers", sqlite: SQLiteSchema.appleTransfers,
                          postgres: PostgresSchema.appleTransfers)
        migrator.register(version: 12, name: "record transfer exports", sqlite: SQLiteSchema.transferExports,
                          postgres: PostgresSchema.transferExports)
        migrator.register(version: 13, name: "record chore claimants", sqlite: SQLiteSchema.choreClaimants,
                          postgres: PostgresSchema.choreClaimants)
        migrator.register(version: 14, name: "keep one Apple token per client", sqlite: SQLiteSchema.oneAppleTokenPerClient,
                          postgres: PostgresSchema.oneAppleTokenPerClient)
        migrator.register(version: 15, name: "order Apple notifications by event time",
                          sqlite: SQLiteSchema.notificationOrder, postgres: PostgresSchema.notificationOrder)
        migrator.register(version: 16, name: "remember consent revocations", sqlite: SQLiteSchema.consentRevocations,
                          postgres: PostgresSchema.consentRevocations)
        migrator.register(version: 17, name: "remember the grant of each bearer token",
                          sqlite: SQLiteSchema.bearerGrants, postgres: PostgresSchema.bearerGrants)
        migrator.register(version: 18, name: "remember when the email and each session were granted",
                          sqlite: SQLiteSchema.grantTimes, postgres: PostgresSchema.grantTimes)
        migrator.register(version: 19, name: "keep Apple notifications for users not yet imported",
                          sqlite: SQLiteSchema.heldNotifications, postgres: PostgresSchema.heldNotifications)
        return migrator
    }

    /// Opens the database at `path` and applies the migrations it lacks.
    ///
    /// - Throws: `MigrationError` (`.databaseIsNewer`) when the file was migrated by a newer build; what `open`
    ///   throws.
    /// - Parameter logger: where the versions applied are noted, as for PostgreSQL.
    package static func openAndMigrate(
        path: String, configuration: DatabaseConfiguration = DatabaseConfiguration(), logger: Logger? = nil
    ) async throws -> DatabasePool {
        let pool = try open(path: path, configuration: configuration)
        do {
            let applied = try await migrator.migrate(pool)
            if !applied.isEmpty { logger?.notice("SQLite \(path) migrated", metadata: ["versions": "\(applied)"]) }
        } catch {
            await pool.close()  // a refused start (a newer database) leaves nothing open
            throw error
        }
        return pool
    }

    /// Refuses, before anything is written to it (its journal mode included), a SQLite file that holds tables but
    /// no record of siwa's migrations (no `schema_migrations`, or another application's table of that name, such as
    /// Rails' with only `version`): another application's database, which migrating would change. Found by an
    /// audit. A file this cannot read is left to the open that follows, which says why.
    static func refuseAnotherApplicationsDatabase(path: String) throws {
        var status = stat()
        guard stat(path, &status) == 0, status.st_size > 0 else { return }
        let database: Database?
        if Database.hasWAL(beside: path) {
            var leavingTheFile = DatabaseConfiguration()
            leavingTheFile.leaveAsFound(path)
            database = try? Database(path: path, configuration: leavingTheFile, readOnly: true)
        } else {
            // Nothing waits in a WAL, so the file alone says what it holds, and looking makes no `-wal` or `-shm`
            // beside another application's database. Found by an audit.
            database = try? Database(inspecting: path)
        }
        guard let database else { return }
        try refuseAnotherApplicationsDatabase(database)
    }

    /// `refuseAnotherApplicationsDatabase(path:)` on a connection already open to the file (the operators' own).
    static func refuseAnotherApplicationsDatabase(_ database: Database) throws {
        guard let tables = try? database.fetchOne(
                  sql: "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
                  { row -> Int in try row[0] }),
              let recorded = try? database.fetchOne(sql: """
                  SELECT count(*) FROM pragma_table_info('schema_migrations')
                  WHERE name IN ('version', 'name', 'applied_at')
                  """, { row -> Int in try row[0] })
        else { return }
        try refuse(tables: tables, recordedColumns: recorded, variable: "DATABASE_PATH", database: database.path)
    }

    /// Throws when a database holds `tables` and its `schema_migrations` lacks some of siwa's three columns.
    private static func refuse(tables: Int, recordedColumns: Int, variable: String, database: String) throws {
        guard tables > 0, recordedColumns < 3 else { return }
        throw ConfigurationError.malformed(name: variable, expected: "a siwa database (\(database) holds another "
            + "application's tables and no siwa migrations; nothing was changed)")
    }

    /// `refuseAnotherApplicationsDatabase(path:)` for PostgreSQL: tables in the current schema, but no
    /// `schema_migrations` with siwa's columns, name another application's database (`DATABASE_URL`), which
    /// migrating would change. Tables an extension made (PostGIS's `spatial_ref_sys`, which some hosts put in every
    /// new database) are not another application's. Found by an audit: a Rails database failed on its
    /// `schema_migrations`, in a message that named SQLite.
    /// With `requiringSiwas`, a database without siwa's migrations at all is refused too, changed in nothing: an
    /// operator's chore names no database to create, as it refuses a missing SQLite file (found by a review:
    /// `siwa apple validate-tokens` on a mistyped, empty database made siwa's tables there and exited 0).
    package static func refuseAnotherApplicationsDatabase(_ database: any DatabaseClient, url: PostgresURL,
                                                          requiringSiwas: Bool = false) async throws {
        let counts = try await database.readOne(SQL("""
            SELECT (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                    WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
                        AND NOT EXISTS (SELECT 1 FROM pg_depend d
                                        WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')),
                   (SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema()
                        AND table_name = 'schema_migrations' AND column_name IN ('version', 'name', 'applied_at'))
            """)) { row in (try row[0] as Int, try row[1] as Int) }
        guard let (tables, recorded) = counts else { return }
        try refuse(tables: tables, recordedColumns: recorded, variable: "DATABASE_URL", database: url.server)
        if requiringSiwas, recorded < 3 {
            throw OperatorError("DATABASE_URL: \(url) has no siwa database yet (start the server once or run "
                                + "`siwa migrate`); nothing was changed")
        }
    }

    /// Opens (or creates) the SQLite database at `path`, `DATABASE_PATH`.
    /// - Throws: `ConfigurationError` naming `DATABASE_PATH` and the path when the file can be neither opened nor
    ///   created (a missing folder, no permission, a folder where SQLite cannot make the `-wal` and `-shm`) or is
    ///   another application's; `SQLiteError` else.
    package static func open(path: String, configuration: DatabaseConfiguration = DatabaseConfiguration()) throws
        -> DatabasePool
    {
        // SQLite would fail on such a path with a bare I/O error and make a `-journal` beside it (found by a review:
        // `/dev/null-journal`), or block reading a FIFO.
        if let kind = NonRegularFile.at(path, followingLinks: true) {
            throw ConfigurationError.malformed(name: "DATABASE_PATH",
                                               expected: "a SQLite file (\(path) is \(kind.rawValue))")
        }
        try refuseAnotherApplicationsDatabase(path: path)
        do {
            return try DatabasePool(path: path, configuration: configuration)
        } catch let error as SQLiteError where error.isCannotOpen || error.isReadOnlyDirectory {
            throw ConfigurationError.malformed(
                name: "DATABASE_PATH", expected: "a SQLite file that can be opened or created (\(cannotOpenReason(path, error)))")
        }
    }

    /// Why SQLite could not open `path`: SQLite says only "unable to open database file", also when what it cannot
    /// open is the `-wal` or `-shm` beside the file (left by a server run as another user), or when the folder does
    /// not let it make them. Found by an audit: an unreadable `-wal` was reported as the database file.
    static func cannotOpenReason(_ path: String, _ error: SQLiteError) -> String {
        for companion in [path + "-wal", path + "-shm"]
        where access(companion, F_OK) == 0 && access(companion, R_OK | W_OK) != 0 {
            return "\(companion) cannot be read and written by this user, and SQLite needs it beside the database"
        }
        let folder = Database.directory(of: path)
        if access(path, F_OK) == 0, access(path + "-wal", F_OK) != 0, access(folder, W_OK | X_OK) != 0 {
            return "the folder \(folder) does not let this user make \(path)-wal and -shm beside the database"
        }
        let message = error.message.hasPrefix(path + ": ") ? String(error.message.dropFirst(path.count + 2)) : error.message
        return "\(path): \(message)"
    }

    /// Applies the migrations PostgreSQL lacks, with a warning for each attempt that found a table's lock held.
    static func migrate(_ pool: PostgresPool, logger: Logger) async throws -> [Int] {
        try await migrator.migrate(pool) { version, attempts in
            logger.warning("""
                PostgreSQL migration \(version) waits for a table lock another transaction holds (a long query or \
                pg_dump; see pg_stat_activity): trying again
                """, metadata: ["attempts": "\(attempts)"])
        }
    }

    /// How long start-up waits for PostgreSQL to answer before it gives up (a database restarting beside the
    /// server, or started with it).
    package static let postgresStartupTimeout: Duration = .seconds(30)

    /// The configured database, migrated: PostgreSQL when `DATABASE_URL` is set, after waiting up to
    /// `postgresStartupTimeout` for it to answer; the SQLite file otherwise, committing the writes of each event-loop
    /// iteration at its end.
    /// - Parameter leavesTheFile: for an operator's command beside a server that may be running: closing a SQLite
    ///   file that had a WAL (a running server's, or a crash's) then checkpoints nothing, as a truncating checkpoint
    ///   would hold that server's writes back; one that had none is left one file again, as a clean stop leaves it.
    ///   A PostgreSQL database without siwa's migrations is then refused, not migrated (the caller checked that the
    ///   SQLite file exists).
    /// - Throws: `PostgresError` naming host and port when PostgreSQL did not answer in time.
    package static func openAndMigrate(_ configuration: Configuration, logger: Logger,
                                       group: EventLoopGroup = .shared, leavesTheFile: Bool = false) async throws
        -> any DatabaseClient
    {
        guard let url = configuration.databaseURL else {
            var settings = DatabaseConfiguration(
                synchronous: configuration.databaseSynchronous,
                busyTimeoutMilliseconds: configuration.databaseBusyTimeoutMilliseconds,
                cacheSizeKiB: configuration.databaseCacheKiB, roundExecutor: EventLoopRounds())
            if leavesTheFile { settings.leaveAsFound(configuration.databasePath) }
            return try await openAndMigrate(path: configuration.databasePath, configuration: settings, logger: logger)
        }
        let pool = PostgresPool(url: url, size: configuration.databasePoolSize,
                                preparedStatements: configuration.databasePreparedStatements, group: group)
        do {
            try await pool.waitUntilAvailable(timeout: postgresStartupTimeout)
        } catch let error as PostgresError where error.reason == .unavailable {
            // A standby answers at once, and is waited for as it may be promoted: it is not said to be silent (found
            // by a black-box review: "did not answer within 30.0 seconds" of a server that answered read-only).
            let outcome = error.isReadOnlyServer ? "took no writes" : "did not answer"
            throw PostgresError.connection("DATABASE_URL: PostgreSQL at \(url.server) \(outcome) within "
                + "\(postgresStartupTimeout): \(error.message)")
        }
        // A start refused below leaves nothing to close: the pool's connections end with it (PostgresPool.close).
        try await refuseAnotherApplicationsDatabase(pool, url: url, requiringSiwas: leavesTheFile)
        let applied = try await migrate(pool, logger: logger)
        if !applied.isEmpty { logger.notice("PostgreSQL \(url) migrated", metadata: ["versions": "\(applied)"]) }
        try await SharedSettings.check(configuration, database: pool)
        return pool
    }
}
