
/// SQLite connections arranged the way SQLite can use them: one writer, several readers.
///
/// Writes go to the `DatabaseWriter`, which commits them in groups on a single connection, so they never contend
/// for the write lock, and resumes each caller only after its commit (see `DatabaseWriter` for who commits when,
/// and `RoundExecutor` for commits at the end of an event loop's round). Reads use a small set of read-only
/// connections, each reading one consistent WAL snapshot per closure. Callers suspend on continuations: no thread
/// of Swift's cooperative pool ever blocks on SQLite.
package final class DatabasePool: Sendable {
    /// The database file.
    package let path: String
    let writer: DatabaseWriter
    private let readers: ReaderSet

    /// Opens the writer (switching the file to WAL), then `configuration.readerCount` readers.
    ///
    /// - Parameters:
    ///   - path: the database file; created when missing. In-memory databases cannot be shared, use `Database`.
    ///   - configuration: connection settings, pool sizes and the round executor whose writes commit on it.
    package init(path: String, configuration: DatabaseConfiguration = DatabaseConfiguration()) throws {
        self.path = path
        self.writer = try DatabaseWriter(path: path, configuration: configuration)
        var connections: [SerialConnection] = []
        for index in 0..<max(configuration.readerCount, 1) {
            let database = try Database(path: path, configuration: configuration, readOnly: true)
            connections.append(SerialConnection(database: database, label: "siwa.storage.reader.\(index)"))
        }
        self.readers = ReaderSet(connections: connections)
    }

    /// Runs `body` in a write transaction and returns its result once the transaction has committed.
    ///
    /// `body` may share its transaction with other queued writes (each in its own savepoint). If `body` throws,
    /// its changes are rolled back and the error is rethrown here; the other writes are not affected.
    /// `body` must not begin, commit or roll back transactions itself (`Database.transaction` nests as a savepoint).
    /// With `urgency` `.mayWait` the commit may wait up to `DatabaseConfiguration.commitWait` for other writes.
    package func write<T: Sendable>(urgency: WriteUrgency = .prompt, _ body: @escaping @Sendable (Database) throws -> T)
        async throws -> T
    {
        try await withCheckedThrowingContinuation { continuation in
            writer.submit(WriteJob(body: body, continuation: continuation, exclusive: false), urgency: urgency)
        }
    }

    /// Runs `body` alone on the writer connection, outside any transaction; for migrations and maintenance.
    ///
    /// `body` manages its own transactions.
    package func writeWithoutTransaction<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            writer.submit(WriteJob(body: body, continuation: continuation, exclusive: true))
        }
    }

    /// Runs `body` on a reader connection inside a read transaction: it sees one committed snapshot,
    /// including every write whose `write` call has returned.
    package func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        if let moved = writer.fileWatch.checkNowAndThen() { throw moved }
        return try await withCheckedThrowingContinuation { continuation in
            let accepted = readers.submit { database in
                continuation.resume(with: Result { try database.transaction(.deferred) { try body(database) } })
            }
            if !accepted { continuation.resume(throwing: SQLiteError.closed(path)) }
        }
    }

    /// Like `read`, but when a reader connection is idle runs `body` at once on the calling thread, without the
    /// two thread hops of `read` (to the reader's queue and back); when every reader is busy, waits in line like
    /// `read`. For short indexed lookups on hot paths (the bearer token of `GET /api/users/me`): the calling
    /// thread, an event loop, serves nothing else meanwhile. A WAL reader does not wait for the writer.
    package func readInline<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        if let moved = writer.fileWatch.checkNowAndThen() { throw moved }
        if let inline = try readers.runInline({ database in try database.transaction(.deferred) { try body(database) } }) {
            return inline
        }
        return try await read(body)
    }

    /// Closes the pool for good, at a clean shutdown: reads and writes already queued finish, later ones fail with
    /// `SQLiteError` (misuse, "closed"); the readers close, the WAL is checkpointed into the database file and
    /// truncated, and the writer closes last. When no other process has the file open, SQLite then deletes the
    /// `-wal` and `-shm` files, so the database is one self-contained file again (a backup copied over it is not
    /// mixed with a stale WAL). A second call returns at once.
    package func close() async {
        await readers.close()
        await writer.close()
    }

    /// Counts of committed write transactions and of the write closures they carried; a caller sees its own
    /// commit counted as soon as its `write` returns.
    package var writeStatistics: WriteStatistics { writer.queue.withLock { $0.statistics } }

    /// Writes queued and not yet started: the group-commit queue's depth (metrics; tests line writes up with it).
    package var pendingWriteCount: Int { writer.queue.withLock { $0.pending.count } }
}

/// What the pool has committed so far.
package struct WriteStatistics: Sendable, Equatable {
    /// Write transactions committed.
    package var transactions = 0
    /// Write closures committed by those transactions; `writes / transactions` is the mean group-commit size.
    package var writes = 0
    /// WAL checkpoints run beside the writer (see `DatabaseConfiguration.checkpointThresholdPages`).
    package var checkpoints = 0
}
