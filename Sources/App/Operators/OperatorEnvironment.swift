import Foundation
import Storage
import Web

/// What the operators' commands (`siwa doctor`, `siwa backup`, `siwa users …`) start from: the same process
/// environment and `.env` as `siwa serve`, read once, and the database they name, opened without creating or
/// migrating anything.
package struct OperatorEnvironment: Sendable {
    /// The configuration the server would start with.
    package let configuration: Configuration

    /// Reads the environment and `dotEnvPath` and checks them as `siwa serve` does.
    /// - Throws: `OperatorError` naming the variable that is missing or malformed.
    package init(dotEnvPath: String = ".env", processEnvironment: [String: String] = ProcessInfo.processInfo.environment)
        throws
    {
        try self.init(environment: Self.environment(dotEnvPath: dotEnvPath, processEnvironment: processEnvironment))
    }

    /// Checks `environment`, already read, as `siwa serve` does.
    /// - Throws: `OperatorError` naming the variable that is missing or malformed.
    package init(environment: Environment) throws {
        do {
            configuration = try Configuration(environment)
        } catch let error as ConfigurationError {
            throw OperatorError("the server is not configured: \(error)")
        }
    }

    /// The process environment and `dotEnvPath`, read once, for a command that looks at a variable before the whole
    /// configuration is checked.
    /// - Throws: `OperatorError` for a malformed `.env`.
    package static func environment(dotEnvPath: String = ".env",
                                    processEnvironment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> Environment
    {
        do {
            return try Environment.load(dotEnvPath: dotEnvPath, processEnvironment: processEnvironment)
        } catch let error as ConfigurationError {
            throw OperatorError("the server is not configured: \(error)")
        }
    }

    /// The environment of `configuration`, already read and checked (a server's own, in the tests).
    package init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// The SQLite file of `DATABASE_PATH`, which must exist: an operator's command never creates a database.
    package func existingDatabasePath() throws -> String {
        let path = configuration.databasePath
        guard FileManager.default.fileExists(atPath: path) else {
            throw OperatorError("DATABASE_PATH: no database at \(path) (start the server once or run `siwa migrate`)")
        }
        if let kind = NonRegularFile.at(path, followingLinks: true) {
            throw OperatorError("DATABASE_PATH: \(path) is \(kind.rawValue), not a SQLite file")
        }
        return path
    }

    /// A read-only connection to the existing database, whose schema must be this build's, or, with
    /// `anySchemaVersion`, any siwa schema (a backup taken before an upgrade's migration). Closing it leaves the
    /// file as it was: a WAL left by a crash is kept, and a file that had none gets none (the last connection to
    /// close removes the empty `-wal` and `-shm` that reading made).
    func openReadOnly(anySchemaVersion: Bool = false) throws -> Database {
        var leavingTheFile = DatabaseConfiguration()
        leavingTheFile.leaveAsFound(configuration.databasePath)
        let path = try existingDatabasePath()
        let companions = Self.absentCompanions(of: path)
        do {
            let database = try Database(path: path, configuration: leavingTheFile, readOnly: true)
            try Self.requireCurrentSchema(database, anyVersion: anySchemaVersion)
            return database
        } catch {
            Self.removeEmpty(companions)
            guard let error = error as? SQLiteError else { throw error }
            throw Self.openFailure(error, path: configuration.databasePath)
        }
    }

    /// The configured database, on either engine, once its schema is known to be this build's: PostgreSQL when
    /// `DATABASE_URL` is set (reachable within `operatorConnectTimeout`), else the existing SQLite file, which
    /// closing leaves as it was found (`openPool`): a WAL left by a crash is read, not checkpointed into the file
    /// (`siwa doctor` never changes the database).
    /// - Returns: the client, and what a finding may call it (`host:port/database` or the file's path).
    func openClient() async throws -> (client: any DatabaseClient, name: String) {
        guard let url = configuration.databaseURL else {
            return (try openPool(), configuration.databasePath)
        }
        let pool: PostgresPool
        let status: Migrator.Status
        do {
            pool = try PostgresPool(url: url, size: 2, preparedStatements: configuration.databasePreparedStatements)
            try await pool.waitUntilAvailable(timeout: Self.operatorConnectTimeout)
            try await AppMigrations.refuseAnotherApplicationsDatabase(pool, url: url)
            status = try await AppMigrations.migrator.status(pool)
        } catch let error as PostgresError where error.isReadOnlyServer {
            // Reached, but read-only: "cannot reach" would send the operator to the network (found by a review).
            throw OperatorError("DATABASE_URL: PostgreSQL at \(url.server) takes no writes: "
                                + (error.hint ?? error.message))
        } catch let error as PostgresError where error.reason == .unavailable {
            throw OperatorError("DATABASE_URL: cannot reach PostgreSQL at \(url.server): \(error.message)")
        } catch let error as PostgresError where error.reason == .misconfigured {
            throw OperatorError(error.message)
        } catch let error as ConfigurationError {
            throw OperatorError("\(error)")
        }
        try Self.requireCurrent(status, name: url.description, variable: "DATABASE_URL")
        return (pool, url.description)
    }

    /// `body` on the configured database (`openClient`), closed after it whatever happens, so that a SQLite file is
    /// left as the command found it, without a `-wal` or `-shm` it did not have (found by an audit).
    func withClient<T>(_ body: (_ client: any DatabaseClient, _ name: String) async throws -> T) async throws -> T {
        let (client, name) = try await openClient()
        do {
            let result = try await body(client, name)
            await client.close()
            return result
        } catch {
            await client.close()
            throw error
        }
    }

    /// How long an operator's command waits for PostgreSQL.
    static let operatorConnectTimeout: Duration = .seconds(5)

    /// The existing database as the server opens it, once its schema is known to be this build's. Closing it leaves
    /// a file that had no WAL without one, and one that had a WAL (a running server's, or a crash's) with it.
    func openPool() throws -> DatabasePool {
        var pool = DatabaseConfiguration(busyTimeoutMilliseconds: configuration.databaseBusyTimeoutMilliseconds,
                                         readerCount: 1)
        pool.leaveAsFound(configuration.databasePath)  // before the check below opens the file
        let companions = Self.absentCompanions(of: configuration.databasePath)
        _ = try openReadOnly()
        do {
            return try DatabasePool(path: configuration.databasePath, configuration: pool)
        } catch let error as SQLiteError {
            Self.removeEmpty(companions)
            throw Self.openFailure(error, path: configuration.databasePath)
        }
    }

    /// The `-wal` and `-shm` files of `path` that do not exist now.
    static func absentCompanions(of path: String) -> [String] {
        [path + "-wal", path + "-shm"].filter { !FileManager.default.fileExists(atPath: $0) }
    }

    /// Removes those of `companions` that an open which failed left behind (a `-wal` only while empty), so that the
    /// file stays as the command found it. Found by a black-box review: on a file of mode 0444, reading made both
    /// with the same mode and failed, and the server could not start on the file once it was writable again.
    static func removeEmpty(_ companions: [String]) {
        for companion in companions {
            var info = stat()
            guard stat(companion, &info) == 0, info.st_size == 0 || companion.hasSuffix("-shm") else { continue }
            unlink(companion)
        }
    }

    /// Why the database at `path` cannot be opened or read. Reading a WAL database writes its `-shm` index beside
    /// it (https://sqlite.org/wal.html#readonly), so a user who may read the file but not write there is told whom
    /// to run the command as, not SQLite's "attempt to write a readonly database" (found by a black-box review).
    static func openFailure(_ error: SQLiteError, path: String, verb: String = "open") -> OperatorError {
        guard error.reason == .readOnly else {
            return OperatorError("DATABASE_PATH: cannot \(verb) \(path): \(error.message)")
        }
        var file = stat()
        guard stat(path, &file) != 0 || file.st_uid != geteuid() || access(path, W_OK) == 0 else {
            return OperatorError("DATABASE_PATH: \(path) is not writable by this user, and SQLite writes its -shm "
                + "file beside it even to read it: run the command as the user the server runs as, and let that "
                + "user write the file (the server needs to as well)")
        }
        return OperatorError("DATABASE_PATH: cannot read \(path) as this user: SQLite writes its -shm file beside it "
            + "even to read it; run the command as the user the server runs as")
    }

    /// Throws unless `database` has exactly the migrations this build knows. Another application's file is said so:
    /// `siwa migrate` would refuse it too, so "run `siwa migrate`" would mislead (found by an audit).
    static func requireCurrentSchema(_ database: Database, anyVersion: Bool = false) throws {
        let status: Migrator.Status
        do {
            try AppMigrations.refuseAnotherApplicationsDatabase(database)
            status = try AppMigrations.migrator.status(database)
        } catch let error as SQLiteError {
            throw openFailure(error, path: database.path, verb: "read")
        } catch let error as ConfigurationError {
            throw OperatorError("\(error)")
        }
        if anyVersion, !status.applied.isEmpty { return }
        try requireCurrent(status, name: database.path, variable: "DATABASE_PATH")
    }

    /// Throws unless `status` is exactly this build's migrations, naming `variable` and the database.
    static func requireCurrent(_ status: Migrator.Status, name: String, variable: String) throws {
        if !status.unknown.isEmpty {
            throw OperatorError("\(variable): \(name) was migrated by a newer siwa "
                + "(versions \(status.unknown.map(String.init).joined(separator: ", "))); use that version")
        }
        if !status.pending.isEmpty {
            throw OperatorError("\(variable): \(name) lacks migration\(status.pending.count == 1 ? "" : "s") "
                + "\(status.pending.map(String.init).joined(separator: ", ")); run `siwa migrate` first")
        }
    }
}

/// Why an operator's command stopped: one line for the operator, never a secret.
package struct OperatorError: Error, Equatable, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
