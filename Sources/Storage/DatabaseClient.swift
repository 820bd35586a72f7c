/// The one database interface the application's repositories use, with two engines behind it: SQLite
/// (`DatabasePool`, the embedded default) and PostgreSQL (`PostgresPool`, for more than one instance).
///
/// Every call is one round trip to PostgreSQL: a write's statements are pipelined and run in one transaction, and a
/// read is one statement. That is what keeps a sign-in to one or two round trips; logic that would need the
/// database's answer half-way through a transaction is written in SQL instead (`INSERT … ON CONFLICT`,
/// sub-selects, `RETURNING`), or as two writes.
package protocol DatabaseClient: Sendable {
    /// Which engine this is, for the few statements that cannot be written the same way for both (the DDL of
    /// migrations).
    var engine: DatabaseEngine { get }

    /// Runs `statements` in order in one transaction: all of them commit, or (when one throws) none does. Returns
    /// once committed, with each statement's result.
    /// - Throws: `DatabaseFailure` (`SQLiteError` or `PostgresError`) naming the statement that failed.
    ///
    /// `urgency` says whether the commit may wait a moment to be shared with other writes (SQLite's group commit);
    /// PostgreSQL commits every write at once either way.
    @discardableResult
    func write(_ statements: [SQL], urgency: WriteUrgency) async throws -> [SQLResult]

    /// Runs one read-only statement on a consistent snapshot and decodes each row with `transform`.
    func read<T: Sendable>(_ statement: SQL, _ transform: @escaping @Sendable (Row) throws -> T) async throws -> [T]

    /// Like `read`, for short lookups by key on hot paths: the SQLite engine runs it at once on the calling thread
    /// when a reader connection is idle.
    func readInline<T: Sendable>(_ statement: SQL, _ transform: @escaping @Sendable (Row) throws -> T) async throws
        -> [T]

    /// Whether the database answers and would take a write now, found out without writing: what `GET /ready`
    /// reports. PostgreSQL: the server answers, is not read-only (a standby, a demoted primary), and none of this
    /// role's commits has waited `PostgresPool.synchronousCommitStall` for a synchronous standby. SQLite: the files
    /// are still those the pool opened (`DatabaseFileWatch`) and a reader answers. (A disk that is full, or that
    /// Linux made read-only after an I/O error, is seen only by a write: ext4 marks the latter `emergency_ro`, which
    /// `statvfs(3)` does not report.)
    func takesWrites() async -> Bool

    /// Why `takesWrites` answers false for good until a restart, when the engine knows: for the log line of
    /// `GET /ready`, which a balancer may be the only one to call once it has taken the instance out.
    var lastingProblem: String? { get }

    /// Ends the process's use of the database at a clean shutdown, once requests in flight are done: SQLite
    /// commits what is queued, checkpoints and closes its connections, so no `-wal` or `-shm` file is left; calls
    /// made afterwards fail. PostgreSQL has nothing to do: its sessions end with the process.
    func close() async
}

/// Whether a write's commit may wait a moment for company.
package enum WriteUrgency: Sendable, Equatable {
    /// Committed as soon as the write has run: at the end of the event loop's round that queued it.
    case prompt
    /// Committed with the next prompt write, or after `DatabaseConfiguration.commitWait` at the latest: for writes
    /// whose callers have waited far longer already, such as a sign-in after its round trip to Apple. Each of those
    /// ends a round of its own, where it would otherwise commit alone.
    case mayWait
}

/// The engines behind `DatabaseClient`.
package enum DatabaseEngine: Sendable, Equatable {
    case sqlite
    case postgres
}

extension DatabaseClient {
    /// None known.
    package var lastingProblem: String? { nil }

    /// Runs `statements` in one transaction, committed promptly (`write(_:urgency:)`).
    @discardableResult
    package func write(_ statements: [SQL]) async throws -> [SQLResult] {
        try await write(statements, urgency: .prompt)
    }

    /// Runs one statement as a write and returns its result.
    @discardableResult
    package func write(_ statement: SQL) async throws -> SQLResult {
        try await write([statement])[0]
    }

    /// The first row of `statement` through `transform`, or nil.
    package func readOne<T: Sendable>(_ statement: SQL, _ transform: @escaping @Sendable (Row) throws -> T) async throws
        -> T?
    {
        try await read(statement, transform).first
    }
}
