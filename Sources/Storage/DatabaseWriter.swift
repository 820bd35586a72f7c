import Glibc
import IOCore
import Synchronization

/// The one connection that writes, and the only place that decides when writes commit.
///
/// Writes queue here and are committed together ("group commit"): up to `maxWriteBatch` closures share one
/// `BEGIN IMMEDIATE … COMMIT`, each inside its own savepoint, so one closure that throws is rolled back alone and
/// the others still commit. Every caller is resumed only after the `COMMIT` that made its changes durable (or with
/// the error that prevented it). Who runs the commit depends only on where the write was queued:
/// - from inside a round of the configured `RoundExecutor` (an event loop): the round's thread, once the round
///   ends, for every write queued meanwhile (`commitQueuedWrites`);
/// - a write that may wait (`WriteUrgency.mayWait`), from inside a round: the commit of the next write that does
///   not wait, the round's executor when it has nothing else to do, or a timer on the round's thread after
///   `commitWait`, whichever comes first. Writes whose callers have waited much longer already (a sign-in after
///   Apple's round trip) share commits this way while the executor is busy, where each would otherwise end a round
///   of its own and commit alone; an idle executor commits them at once rather than waking for the timer;
/// - anywhere else: the writer's own serial queue, woken by the first write of an empty queue.
///
/// WAL checkpoints run on a connection of their own beside the writer (`DatabaseWriter+Checkpoints.swift`).
final class DatabaseWriter: Sendable {
    /// The database file.
    let path: String
    let connection: SerialConnection
    /// Whether the files the writer opened are still those at their paths; every batch asks before it commits.
    let fileWatch: DatabaseFileWatch
    let checkpointer: SerialConnection?
    let checkpointThreshold: Int
    /// `DatabaseConfiguration.walLimitBytes` in pages of this database.
    let walLimitPages: Int
    let queue: Mutex<WriteQueue>
    private let maxWriteBatch: Int
    /// `DatabaseConfiguration.checkpointsOnClose`: whether `close()` checkpoints the WAL into the file.
    let checkpointsOnClose: Bool
    private let roundExecutor: (any RoundExecutor)?
    /// How long a write that may wait waits at most for company before it commits.
    private let commitWait: Duration
    /// What the end of a round or an idle executor runs (`commitQueuedWrites`), and the timer of writes that may
    /// wait: made once, so that queuing a write allocates no closure.
    private let commitQueued: @Sendable () -> Void
    private let commitAfterWait: @Sendable () -> Void

    init(path: String, configuration: DatabaseConfiguration) throws {
        let database = try Database(path: path, configuration: configuration)
        self.path = path
        self.checkpointThreshold = max(configuration.checkpointThresholdPages, 0)
        let pageSize = try database.fetchOne(sql: "PRAGMA page_size") { row -> Int in try row[0] }
        self.walLimitPages = max(checkpointThreshold, configuration.walLimitBytes / max(pageSize ?? 4_096, 512))
        if checkpointThreshold > 0 {
            database.trackWALInsteadOfCheckpointing()
            self.checkpointer = SerialConnection(
                database: try Database(path: path, configuration: configuration), label: "siwa.storage.checkpointer")
        } else {
            self.checkpointer = nil
        }
        self.fileWatch = DatabaseFileWatch(path: path, writer: database)
        self.connection = SerialConnection(database: database, label: "siwa.storage.writer")
        self.queue = Mutex(WriteQueue())
        self.maxWriteBatch = max(configuration.maxWriteBatch, 1)
        self.checkpointsOnClose = configuration.checkpointsOnClose
        self.roundExecutor = configuration.roundExecutor
        self.commitWait = max(configuration.commitWait, .zero)
        let target = WeakWriter()
        self.commitQueued = { target.writer?.commitQueuedWrites() }
        self.commitAfterWait = {
            guard let writer = target.writer else { return }
            writer.queue.withLock { $0.waitTimerArmed = false }
            writer.commitQueuedWrites()
        }
        target.writer = self
    }

    /// Queues `job` and makes sure something will commit it: the end of the caller's round, the timer of writes
    /// that may wait, or the writer queue.
    func submit(_ job: WriteJob, urgency: WriteUrgency = .prompt) {
        if urgency == .mayWait, !job.exclusive, commitWait > .zero, let roundExecutor {
            queueWriteThatMayWait(job, roundExecutor)
            return
        }
        let atRoundEnd = !job.exclusive
            && roundExecutor?.runAtEndOfCurrentRound(key: ObjectIdentifier(self), commitQueued) == true
        let startDrain = queue.withLock { queue -> Bool? in
            guard !queue.isClosed else { return nil }
            queue.pending.append(job)
            return !atRoundEnd && queue.claimDrain()
        }
        guard let startDrain else { return job.fail(SQLiteError.closed(path)) }
        if startDrain { connection.async { [self] database in drain(database) } }
    }

    /// Queues a write that may wait, to be committed when the calling round's executor has nothing else to do or
    /// `commitWait` has passed; an executor that cannot tell when it is idle gets a timer on its thread instead,
    /// when none is armed. Off the round executor's threads neither is possible, and the writer queue commits the
    /// write like any other.
    ///
    /// A write queued while a timer is armed is committed by that timer at the latest: the timer disarms under the
    /// queue's lock before it takes the queue.
    private func queueWriteThatMayWait(_ job: WriteJob, _ roundExecutor: any RoundExecutor) {
        let queued = queue.withLock { queue -> Bool in
            guard !queue.isClosed else { return false }
            queue.pending.append(job)
            return true
        }
        guard queued else { return job.fail(SQLiteError.closed(path)) }
        if roundExecutor.runWhenIdle(key: ObjectIdentifier(self), atTheLatestAfter: commitWait, commitQueued) {
            return
        }
        let arm = queue.withLock { queue -> Bool in
            if queue.waitTimerArmed { return false }
            queue.waitTimerArmed = true
            return true
        }
        guard arm, !roundExecutor.runOnCurrentThread(after: commitWait, commitAfterWait) else { return }
        let startDrain = queue.withLock { queue -> Bool in
            queue.waitTimerArmed = false
            return queue.claimDrain()
        }
        if startDrain { connection.async { [self] database in drain(database) } }
    }

    /// Commits the queued writes on the calling thread (the end of a round), one batch in one transaction, unless
    /// the writer queue is already at work (it then commits them after its current batch). What one batch leaves
    /// (more than `maxWriteBatch` writes, or a checkpoint the writer must finish) goes on on the writer queue, so
    /// the calling thread waits for at most one commit. It never waits for another process's write lock: a batch
    /// that finds it held goes to the writer queue whole, whose thread waits out the busy timeout. Found by a
    /// black-box review: the loop thread waited in SQLite's busy handler, and every deadline and connection of that
    /// loop with it, for up to the busy timeout.
    func commitQueuedWrites() {
        let start = queue.withLock { queue -> Bool in
            !queue.pending.isEmpty && queue.claimDrain()
        }
        guard start else { return }
        connection.sync { database in
            guard let batch = nextBatch() else { return }
            // An error other than a held lock is left to the batch's own `BEGIN`, which reports it to its callers.
            if !batch[0].exclusive, (try? database.beginImmediateIfFree()) == false {
                queue.withLock { $0.pending.insert(contentsOf: batch, at: 0) }
                connection.async { [self] database in drain(database) }
                return
            }
            let mustFinishCheckpoint = commit(batch, on: database)
            let handOff = queue.withLock { queue -> Bool in
                guard queue.pending.isEmpty, !mustFinishCheckpoint else { return true }
                queue.isDraining = false
                return false
            }
            guard handOff else { return }
            connection.async { [self] database in
                if mustFinishCheckpoint { finishCheckpoint(database) }
                drain(database)
            }
        }
    }

    /// Runs queued writes batch by batch until the queue is empty; only ever running on the writer's queue.
    func drain(_ database: Database) {
        while let batch = nextBatchAfterYielding() {
            if commit(batch, on: database) { finishCheckpoint(database) }
        }
    }

    /// Commits one batch (or runs one exclusive job), counts it, resumes its callers and starts a checkpoint
    /// beside the writer when one is due; on the writer's queue. A batch is refused whole once the database's files
    /// are not those at their paths any more (`DatabaseFileWatch`); an exclusive job (a migration, the close) runs.
    ///
    /// - Returns: whether the writer must now finish a checkpoint itself: the WAL reached its limit, or a write
    ///   found no room (a full disk, `ulimit -f`), where only a WAL that starts over from its beginning can make
    ///   room again.
    private func commit(_ batch: [WriteJob], on database: Database) -> Bool {
        let outcome: WriteBatch.Outcome
        if batch.count == 1, batch[0].exclusive {
            batch[0].runAlone(database)
            outcome = WriteBatch.Outcome()
        } else if let moved = fileWatch.check() {
            database.rollback()  // a transaction `commitQueuedWrites` began
            batch.forEach { $0.fail(moved) }
            outcome = WriteBatch.Outcome()
        } else {
            let waiting = database.isInsideTransaction ? batch : begin(batch, on: database)
            outcome = waiting.isEmpty ? WriteBatch.Outcome() : WriteBatch(jobs: waiting).commit(on: database)
        }
        let committed = outcome.committed
        let action = queue.withLock { queue -> CheckpointAction in
            if !committed.isEmpty {
                queue.statistics.transactions += 1
                queue.statistics.writes += committed.count
            }
            return checkpointAction(database, isCheckpointing: &queue.isCheckpointing)
        }
        committed.forEach { $0.resume() }
        if outcome.outOfRoom, checkpointer != nil { return true }
        switch action {
        case .none: return false
        case .beside:
            checkpointer?.async { [self] database in checkpoint(database) }
            return false
        case .onWriter: return true
        }
    }

    /// Begins the transaction of `batch` on the writer thread, each write waiting for another process's lock only for
    /// what is left of its own busy timeout, counted from when it was queued: when the lock outlasts the oldest
    /// write's time, the writes whose time is up fail with SQLite's busy error and the others wait on for the rest
    /// of theirs. Found by black-box reviews: a write queued behind a waiting batch waited that batch's timeout and
    /// then its own; with one timeout for the whole batch, the later writes failed with the oldest one, the lock
    /// gone a moment later.
    /// - Returns: the writes to run in the transaction begun; all of `batch`, with no transaction, when `BEGIN`
    ///   failed otherwise (`WriteBatch.commit` then reports that error); empty when each write's time ran out.
    private func begin(_ batch: [WriteJob], on database: Database) -> [WriteJob] {
        var waiting = batch
        while let oldest = waiting.lazy.map(\.queuedAt).min() {
            do {
                try database.beginImmediate(waitingAtMost: database.busyTimeoutMilliseconds
                                                - Self.milliseconds(since: oldest, at: MonotonicClock.now()))
                return waiting
            } catch let error as SQLiteError where error.reason == .busy {
                let now = MonotonicClock.now()
                let timeUp = { (job: WriteJob) in
                    job.queuedAt == oldest
                        || Self.milliseconds(since: job.queuedAt, at: now) >= database.busyTimeoutMilliseconds
                }
                waiting.filter(timeUp).forEach { $0.fail(error) }
                waiting.removeAll(where: timeUp)
            } catch {
                return waiting
            }
        }
        return []
    }

    private static func milliseconds(since start: UInt64, at now: UInt64) -> Int {
        Int(clamping: MonotonicClock.elapsed(from: start, to: now) / 1_000_000)
    }

    /// Lets the threads that are ready to run on this core go first when the queue is short of a full batch:
    /// a writer woken by the first write would otherwise commit it alone while the requests behind it wait for
    /// the core, and every commit would be a batch of one. With an idle core to spare this returns at once.
    private func nextBatchAfterYielding() -> [WriteJob]? {
        if queue.withLock({ $0.pending.count }) < maxWriteBatch { sched_yield() }
        return nextBatch()
    }

    private func nextBatch() -> [WriteJob]? {
        queue.withLock { queue -> [WriteJob]? in
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

/// The writer a round's end commits for, held weakly: a round may end after the pool is gone.
private final class WeakWriter: @unchecked Sendable {
    /// Set once, in `DatabaseWriter.init`, before the writer is shared.
    weak var writer: DatabaseWriter?
}

struct WriteQueue: ~Copyable {
    var pending: [WriteJob] = []
    var isDraining = false
    var isCheckpointing = false
    /// Whether a timer will commit the writes that may wait (`DatabaseWriter.queueWriteThatMayWait`).
    var waitTimerArmed = false
    /// Set when `DatabaseWriter.close()` queues its last job: every write submitted after it is refused.
    var isClosed = false
    var statistics = WriteStatistics()

    /// Makes the caller the one that drains the queue, unless someone already is: true when it must start a drain.
    mutating func claimDrain() -> Bool {
        if isDraining { return false }
        isDraining = true
        return true
    }
}
