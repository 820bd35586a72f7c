import CSQLite
import Glibc

/// One SQLite connection: owns the `sqlite3 *` and closes it in `deinit`.
///
/// A `Database` is not thread-safe; use it from one thread at a time. `DatabasePool` gives each connection
/// its own serial queue and hands it to closures. The connection is opened with extended result codes,
/// WAL journaling, foreign keys on, a busy timeout, the configured `synchronous` level and cache size.
package final class Database {
    let handle: OpaquePointer  // sqlite3 *
    /// The file this connection is open on.
    package let path: String
    private var statementCache: [StatementKey: Statement] = [:]
    /// False once `close()` ran: the handle is gone, and nothing may reach SQLite through it.
    private(set) var isOpen = true
    let walMonitor = WALMonitor()
    /// `DatabaseConfiguration.busyTimeoutMilliseconds`: how long a statement waits for another connection's lock.
    private(set) var busyTimeoutMilliseconds = DatabaseConfiguration.defaultBusyTimeoutMilliseconds
    /// The busy handler that waits it out on the monotonic clock; SQLite holds a pointer to it while `handle` is open.
    let busyWait = BusyWait(timeoutMilliseconds: DatabaseConfiguration.defaultBusyTimeoutMilliseconds)
    /// The size a restarted WAL is truncated back to (`PRAGMA journal_size_limit`): 64 MiB.
    static let journalSizeLimitBytes = 64 << 20

    /// Opens (creating when needed, unless `readOnly`) the database at `path`.
    ///
    /// - Parameters:
    ///   - path: a file path, or `":memory:"` for a private in-memory database (no WAL).
    ///   - configuration: connection settings.
    ///   - readOnly: open with `query_only`, for reader connections.
    package convenience init(path: String, configuration: DatabaseConfiguration = DatabaseConfiguration(), readOnly: Bool = false) throws {
        Self.createPrivately(path)
        try self.init(opening: path, as: path,
                      flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE,
                      configuration: configuration, readOnly: readOnly)
    }

    /// Opens the existing file at `path` as it is on disk, to look at: read only, without locks, and without making a
    /// `-wal` or a `-shm` beside it (SQLite's `immutable=1`, https://sqlite.org/uri.html#uriimmutable). What a
    /// `-wal` holds is not seen, so this is for a file that has none, and which no one writes while it is open.
    package convenience init(inspecting path: String) throws {
        var uri = path.hasPrefix("/") ? "file://" : "file:"
        for scalar in path.unicodeScalars {
            switch scalar {
            case "%", "?", "#": uri += "%" + String(scalar.value, radix: 16, uppercase: true)
            default: uri.unicodeScalars.append(scalar)
            }
        }
        try self.init(opening: uri + "?immutable=1", as: path,
                      flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE,
                      configuration: DatabaseConfiguration(), readOnly: true)
    }

    private init(opening name: String, as path: String, flags: Int32, configuration: DatabaseConfiguration,
                 readOnly: Bool) throws {
        var connection: OpaquePointer?
        let code = sqlite3_open_v2(name, &connection, flags, nil)
        guard let connection else {
            throw SQLiteError(extendedCode: code, message: "cannot allocate a connection")
        }
        guard code == SQLITE_OK else {
            let error = SQLiteError(code: code, connection: connection, sql: nil)
            sqlite3_close_v2(connection)  // open allocates the handle even when it fails
            throw error
        }
        self.handle = connection
        self.path = path
        do {
            try configure(configuration, readOnly: readOnly)
        } catch var error as SQLiteError {
            error.message = "\(path): \(error.message)"
            throw error
        }
    }

    deinit { close() }

    /// Whether the database at `path` has a `-wal` beside it: a connection has it open (a running server), or one
    /// did and crashed. Without one, the file alone holds the database.
    package static func hasWAL(beside path: String) -> Bool {
        access(path + "-wal", F_OK) == 0
    }

    /// Makes a database file that does not exist yet readable by its owner only (0600, whatever the umask), before
    /// SQLite creates it: it holds e-mails, token hashes and sealed refresh tokens, and SQLite gives its `-wal` and
    /// `-shm` the database file's mode. An empty file is an empty database. A file that exists keeps its mode; a
    /// path that cannot be created is left to `sqlite3_open_v2`, which says why. Found by a security review: new
    /// databases were 0644, readable by every local user. A symlink to a file that does not exist yet is followed
    /// (up to `symlinkHops` links), so that the file made at its end is private too (found by an audit: it was 0644).
    static func createPrivately(_ path: String, hops: Int = symlinkHops) {
        guard path != ":memory:", !path.hasPrefix("file:") else { return }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            Glibc.close(descriptor)
            return
        }
        var status = stat()
        guard errno == EEXIST, hops > 0, lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK,
              stat(path, &status) != 0, errno == ENOENT else { return }
        var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink(path, &target, Int(PATH_MAX))
        guard length > 0 else { return }
        let destination = String(decoding: target[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let folder = path.lastIndex(of: "/").map { String(path[...$0]) } ?? ""
        createPrivately(destination.hasPrefix("/") ? destination : folder + destination, hops: hops - 1)
    }

    /// Links followed at most to the file a new database's path names (Linux's own limit, `SYMLOOP_MAX`, is 40).
    static let symlinkHops = 8

    /// Finalizes the cached statements and closes the connection now rather than in `deinit`; a second call does
    /// nothing. The last connection to a WAL database to close checkpoints it and deletes its `-wal` and `-shm`
    /// files (https://sqlite.org/wal.html#the_wal_file). Callers make sure nothing uses the connection afterwards:
    /// `DatabasePool.close()` refuses work first.
    func close() {
        guard isOpen else { return }
        isOpen = false
        statementCache.removeAll()
        sqlite3_close_v2(handle)
    }

    private func configure(_ configuration: DatabaseConfiguration, readOnly: Bool) throws {
        sqlite3_extended_result_codes(handle, 1)
        busyTimeoutMilliseconds = configuration.busyTimeoutMilliseconds
        busyWait.timeoutMilliseconds = busyTimeoutMilliseconds
        busyWait.install(on: handle)
        if !configuration.checkpointsOnClose {
            guard csqlite_set_no_checkpoint_on_close(handle, 1) == SQLITE_OK else {
                throw SQLiteError.misuse("cannot keep \(path) from checkpointing when it closes")
            }
        }
        // SQLite silently falls back to read-only when the file is not writable; a writer must say so at once.
        if !readOnly, sqlite3_db_readonly(handle, "main") == 1 {
            throw SQLiteError(extendedCode: SQLITE_READONLY,
                              message: "the database file is read-only (check its permissions and its directory's)")
        }
        try executeScript("PRAGMA foreign_keys = ON")
        if !readOnly {
            try execute(sql: "PRAGMA page_size = \(configuration.pageSize)")  // no effect once the file has a page
            let mode = try fetchOne(sql: "PRAGMA journal_mode = WAL") { row -> String in try row[0] }
            guard mode?.lowercased() == "wal" || path == ":memory:" else {
                throw SQLiteError.misuse("cannot switch \(path) to WAL mode (got \(mode ?? "nothing"))")
            }
        }
        switch configuration.synchronous {
        case .normal: try executeScript("PRAGMA synchronous = NORMAL")
        case .full: try executeScript("PRAGMA synchronous = FULL")
        }
        try execute(sql: "PRAGMA cache_size = \(-max(configuration.cacheSizeKiB, 0))")
        if readOnly { try executeScript("PRAGMA query_only = ON") }
        try execute(sql: "PRAGMA journal_size_limit = \(Self.journalSizeLimitBytes)")
    }

    /// The statement for `sql`, prepared once per connection and reused (SQLite's own plan cache is per statement).
    ///
    /// The statement is reset before it is handed back; do not use the same SQL while iterating its rows.
    package func cachedStatement(sql: String) throws -> Statement {
        let key = StatementKey(sql)
        if let statement = statementCache[key] {
            statement.reset()
            return statement
        }
        let statement = try Statement(connection: handle, sql: sql, persistent: true)
        statementCache[key] = statement
        return statement
    }

    /// A new statement for `sql`, not cached; for statements run once.
    package func makeStatement(sql: String) throws -> Statement {
        try Statement(connection: handle, sql: sql, persistent: false)
    }

    /// Runs one statement with `arguments` bound to its `?` parameters.
    package func execute(sql: String, arguments: [any DatabaseValueConvertible] = []) throws {
        try cachedStatement(sql: sql).execute(arguments)
    }

    /// Runs every statement in `sql`, which takes no arguments (schema changes, pragmas).
    package func executeScript(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard code == SQLITE_OK else {
            var error = SQLiteError(code: code, connection: handle, sql: sql)
            if let message { error.message = String(cString: message) }
            throw error
        }
    }

    /// Every row of `sql`, mapped with `transform`.
    package func fetchAll<T>(
        sql: String, arguments: [any DatabaseValueConvertible] = [], _ transform: (Row) throws -> T
    ) throws -> [T] {
        try cachedStatement(sql: sql).fetchAll(arguments, transform)
    }

    /// The first row of `sql` mapped with `transform`, or nil when there is none.
    package func fetchOne<T>(
        sql: String, arguments: [any DatabaseValueConvertible] = [], _ transform: (Row) throws -> T
    ) throws -> T? {
        try cachedStatement(sql: sql).fetchOne(arguments, transform)
    }

    /// The number of rows changed by the last INSERT, UPDATE or DELETE.
    package var changes: Int { Int(sqlite3_changes64(handle)) }

    /// The rowid of the last successful INSERT.
    package var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Whether a transaction is open on this connection.
    package var isInsideTransaction: Bool { isOpen && sqlite3_get_autocommit(handle) == 0 }
}
