import Dispatch
import Glibc
import Synchronization

/// SQLite connections arranged the way SQLite can use them: one writer, several readers.
///
/// Writes go to a single connection on its own serial queue, so they never contend for the write lock.
/// Queued write closures are committed together ("group commit"): up to `maxWriteBatch` closures share one
/// `BEGIN IMMEDIATE … COMMIT`, each inside its own savepoint, so one closure that throws is rolled back alone
/// and the others still commit. Every caller is resumed only after the `COMMIT` that made its changes durable
/// (or with the error that prevented it). Reads use a small set of read-only connections, each reading one
/// consistent WAL snapshot per closure. Callers suspend on continuations: no thread of Swift's cooperative pool
/// ever blocks on SQLite, and an event-loop thread only when it commits its own writes (below). WAL checkpoints
/// run on a connection of their own beside the writer (`DatabaseConfiguration.checkpointThresholdPages`), so
/// commits do not wait for a checkpoint's `fsync`.
///
/// A thread that works in rounds, an event loop, can commit its own writes instead
/// (`commitWritesOnCurrentThread()`): its writes wait for the end of its round, `commitQueuedWrites()`, and
/// commit there together, with no writer thread to wake and no second thread competing for the core.
public final class DatabasePool: Sendable {
    /// The database file.
    public let path: String
    private let writer: SerialConnection
    private let checkpointer: SerialConnection?
    private let checkpointThreshold: Int
    /// `DatabaseConfiguration.walLimitBytes` in pages of this database.
    private let walLimitPages: Int
    private let readers: ReaderSet
    private let writeQueue: Mutex<WriteQueue>
    private let maxWriteBatch: Int

    /// Opens the writer (switching the file to WAL), then `configuration.readerCount` readers.
    ///
    /// - Parameters:
    ///   - path: the database file; created when missing. In-memory databases cannot be shared, use `Database`.
    ///   - configuration: connection settings and pool sizes.
    public init(path: String, configuration: DatabaseConfiguration = DatabaseConfiguration()) throws {
        self.path = path
        let writerDatabase = try Database(path: path, configuration: configuration)
        self.checkpointThreshold = max(configuration.checkpointThresholdPages, 0)
        let pageSize = try writerDatabase.fetchOne(sql: "PRAGMA page_size") { row -> Int in try row[0] }
        self.walLimitPages = max(checkpointThreshold, configuration.walLimitBytes / max(pageSize ?? 4_096, 512))
        if checkpointThreshold > 0 {
            writerDatabase.trackWALInsteadOfCheckpointing()
            self.checkpointer = SerialConnection(
                database: try Database(path: path, configuration: configuration), label: "siwa.storage.checkpointer")
        } else {
            self.checkpointer = nil
        }
        self.writer = SerialConnection(database: writerDatabase, label: "siwa.storage.writer")
        var connections: [SerialConnection] = []
        for index in 0..<max(configuration.readerCount, 1) {
            let database = try Database(path: path, configuration: configuration, readOnly: true)
            connections.append(SerialConnection(database: database, label: "siwa.storage.reader.\(index)"))
        }
        self.readers = ReaderSet(connections: connections)
        self.writeQueue = Mutex(WriteQueue())
        self.maxWriteBatch = max(configuration.maxWriteBatch, 1)
    }

    /// Runs `body` in a write transaction and returns its result once the transaction has committed.
    ///
    /// `body` may share its transaction with other queued writes (each in its own savepoint). If `body` throws,
    /// its changes are rolled back and the error is rethrown here; the other writes are not affected.
    /// `body` must not begin, commit or roll back transactions itself (`Database.transaction` nests as a savepoint).
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            enqueue(WriteJob(body: body, continuation: continuation, exclusive: false))
        }
    }

    /// Runs `body` alone on the writer connection, outside any transaction; for migrations and maintenance.
    ///
    /// `body` manages its own transactions.
    public func writeWithoutTransaction<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            enqueue(WriteJob(body: body, continuation: continuation, exclusive: true))
        }
    }

    /// Runs `body` on a reader connection inside a read transaction: it sees one committed snapshot,
    /// including every write whose `write` call has returned.
    public func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            readers.submit { database in
                continuation.resume(with: Result { try database.transaction(.deferred) { try body(database) } })
            }
        }
    }

    /// Like `read`, but when a reader connection is idle runs `body` at once on the calling thread, without the
    /// two thread hops of `read` (to the reader's queue and back); when every reader is busy, waits in line like
    /// `read`. For short indexed lookups on hot paths (the bearer token of `GET /api/users/me`): the calling
    /// thread, an event loop, serves nothing else meanwhile. A WAL reader does not wait for the writer.
    public func readInline<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let inline = readers.runInline { database in
            Result { try database.transaction(.deferred) { try body(database) } }
        }
        if let inline { return try inline.get() }
        return try await read(body)
    }

    /// Counts of committed write transactions and of the write closures they carried; a caller sees its own
    /// commit counted as soon as its `write` returns.
    public var writeStatistics: WriteStatistics { writeQueue.withLock { $0.statistics } }

    /// Writes queued and not yet started: the group-commit queue's depth (metrics; tests line writes up with it).
    public var pendingWriteCount: Int { writeQueue.withLock { $0.pending.count } }

    /// Makes the calling thread commit the writes it queues itself: from now on `write` called on this thread
    /// (not `writeWithoutTransaction`) queues its closure without waking the writer thread, and the thread must
    /// call `commitQueuedWrites()` at the end of every round of its work, or those writes wait forever. For event
    /// loops: the writes of the requests one loop iteration served commit together at its end.
    public func commitWritesOnCurrentThread() {
        pthread_setspecific(Self.roundThreadKey, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Commits the queued writes on the calling thread, one batch in one transaction, unless the writer
    /// thread is already at work (it then commits them after its current batch). What one batch leaves (more than
    /// `maxWriteBatch` writes, or a checkpoint the writer must finish) goes on on the writer thread, so the
    /// calling thread waits for at most one commit.
    public func commitQueuedWrites() {
        let start = writeQueue.withLock { queue -> Bool in
            guard !queue.pending.isEmpty, !queue.isDraining else { return false }
            queue.isDraining = true
            return true
        }
        guard start else { return }
        writer.sync { database in
            guard let batch = nextBatch() else { return }
            let mustFinishCheckpoint = commit(batch, on: database)
            let handOff = writeQueue.withLock { queue -> Bool in
                guard queue.pending.isEmpty, !mustFinishCheckpoint else { return true }
                queue.isDraining = false
                return false
            }
            guard handOff else { return }
            writer.async { [self] database in
                if mustFinishCheckpoint { finishCheckpoint(database) }
                drain(database)
            }
        }
    }

    /// The pool a thread commits its own writes for (`commitWritesOnCurrentThread`), compared, never dereferenced.
    private static let roundThreadKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    private func enqueue(_ job: WriteJob) {
        let committer: UnsafeMutableRawPointer? = pthread_getspecific(Self.roundThreadKey)
        let deferred = !job.exclusive && committer == Unmanaged.passUnretained(self).toOpaque()
        let startDrain = writeQueue.withLock { queue -> Bool in
            queue.pending.append(job)
            if queue.isDraining || deferred { return false }
            queue.isDraining = true
            return true
        }
        if startDrain { writer.async { [self] database in drain(database) } }
    }

    /// Runs queued writes batch by batch until the queue is empty; only ever running on the writer's queue.
    private func drain(_ database: Database) {
        while let batch = nextBatchAfterYielding() {
            if commit(batch, on: database) { finishCheckpoint(database) }
        }
    }

    /// Commits one batch (or runs one exclusive job), counts it, resumes its callers and starts a checkpoint
    /// beside the writer when one is due; on the writer's queue.
    ///
    /// - Returns: whether the writer must now finish a checkpoint itself (the WAL reached its limit).
    private func commit(_ batch: [WriteJob], on database: Database) -> Bool {
        let committed: [WriteCompletion]
        if batch.count == 1, batch[0].exclusive {
            batch[0].runAlone(database)
            committed = []
        } else {
            committed = WriteBatch(jobs: batch).commit(on: database)
        }
        let action = writeQueue.withLock { queue -> CheckpointAction in
            if !committed.isEmpty {
                queue.statistics.transactions += 1
                queue.statistics.writes += committed.count
            }
            return checkpointAction(database, isCheckpointing: &queue.isCheckpointing)
        }
        committed.forEach { $0.resume() }
        switch action {
        case .none: return false
        case .beside:
            checkpointer?.async { [self] database in checkpoint(database) }
            return false
        case .onWriter: return true
        }
    }

    private enum CheckpointAction { case none, beside, onWriter }

    /// Decides after a commit: a checkpoint beside the writer each time the WAL grew by the threshold, and a
    /// finishing one, with the writer waiting, once the WAL holds `walLimitPages`, even while one runs beside it
    /// (the writer then waits for that one first), so the WAL never outgrows the limit by more than one batch.
    ///
    /// The writer's wait is one checkpoint of the frames written since the last one beside it: two `fdatasync`
    /// calls of a few hundred KiB (4-10 ms on the benchmark machine; 5-30 ms before checkpoints beside the writer
    /// synced the database file, see `checkpoint`). With a 64 MiB limit and 1 KiB pages that happens about every
    /// 3 s under `Benchmarks/run`'s returning-user sign-ins; with 16 MiB, every 0.75 s.
    private func checkpointAction(_ database: Database, isCheckpointing: inout Bool) -> CheckpointAction {
        guard checkpointThreshold > 0 else { return .none }
        let monitor = database.walMonitor
        if monitor.pages < monitor.pagesAtLastCheckpoint { monitor.pagesAtLastCheckpoint = 0 }  // the WAL restarted
        if monitor.pages >= walLimitPages { return .onWriter }
        guard !isCheckpointing else { return .none }
        guard monitor.pages - monitor.pagesAtLastCheckpoint >= checkpointThreshold else {
            return .none
        }
        monitor.pagesAtLastCheckpoint = monitor.pages
        isCheckpointing = true
        return .beside
    }

    /// Completes the backfill while the writer waits between transactions, so the WAL can start over from its
    /// beginning at the next write.
    ///
    /// A checkpoint beside a busy writer never catches up with the last frames, and SQLite restarts the WAL only
    /// once every frame is backfilled. The writer waits for this one on the checkpointer's queue, after any
    /// checkpoint already running there (the writer's queue is a Dispatch thread, so waiting blocks no task).
    private func finishCheckpoint(_ database: Database) {
        guard let checkpointer, checkpointer.sync({ (try? $0.checkpoint()) != nil }) else { return }
        database.walMonitor.pages = 0
        database.walMonitor.pagesAtLastCheckpoint = 0
        writeQueue.withLock { $0.statistics.checkpoints += 1 }
    }

    /// Backfills the WAL into the database file on the checkpointer connection, beside the writer, then syncs the
    /// database file, so that the writer's own checkpoint (`finishCheckpoint`) has only the latest pages to sync.
    private func checkpoint(_ database: Database) {
        let succeeded = (try? database.checkpoint()) != nil && (try? database.syncDatabaseFile()) != nil
        writeQueue.withLock { queue in
            queue.isCheckpointing = false
            if succeeded { queue.statistics.checkpoints += 1 }
        }
    }

    /// Lets the threads that are ready to run on this core go first when the queue is short of a full batch:
    /// a writer woken by the first write would otherwise commit it alone while the requests behind it wait for
    /// the core, and every commit would be a batch of one. With an idle core to spare this returns at once.
    private func nextBatchAfterYielding() -> [WriteJob]? {
        if pendingWriteCount < maxWriteBatch { sched_yield() }
        return nextBatch()
    }

    private func nextBatch() -> [WriteJob]? {
        writeQueue.withLock { queue -> [WriteJob]? in
            guard let first = queue.pending.first else {
                queue.isDraining = false
                return nil
            }
            if first.exclusive {
                queue.pending.removeFirst()
                return [first]
            }
            let count = queue.pending.prefix(maxWriteBatch).prefix { !$0.exclusive }.count
            let batch = Array(queue.pending.prefix(count))
            queue.pending.removeFirst(count)
            return batch
        }
    }
}

/// What the pool has committed so far.
public struct WriteStatistics: Sendable, Equatable {
    /// Write transactions committed.
    public var transactions = 0
    /// Write closures committed by those transactions; `writes / transactions` is the mean group-commit size.
    public var writes = 0
    /// WAL checkpoints run beside the writer (see `DatabaseConfiguration.checkpointThresholdPages`).
    public var checkpoints = 0
}

struct WriteQueue: ~Copyable {
    var pending: [WriteJob] = []
    var isDraining = false
    var isCheckpointing = false
    var statistics = WriteStatistics()
}
