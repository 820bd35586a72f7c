import Foundation
import Glibc
import Testing
@testable import Storage

/// Writes queued inside a round of the pool's `RoundExecutor` commit on that round's thread, at its end.
struct LoopCommitTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    /// Starts one task per value on `thread`, each inserting its value, lets them run in one round and returns
    /// which committed.
    private func insertInOneRound(_ values: [Int], on thread: RoundThread, _ pool: DatabasePool) async -> [Bool] {
        let tasks = values.map { value in
            Task(executorPreference: thread) {
                try await pool.write { try $0.execute(sql: "INSERT INTO t VALUES (?)", arguments: [value]) }
            }
        }
        thread.open()
        var committed: [Bool] = []
        for task in tasks { committed.append((try? await task.value) != nil) }
        return committed
    }

    @Test func writesQueuedInOneRoundCommitTogetherAtItsEnd() async throws {
        let thread = RoundThread()
        let pool = try await makePoolWithTable(in: directory, DatabaseConfiguration(roundExecutor: thread))
        let before = pool.writeStatistics
        let committed = await insertInOneRound(Array(0..<10), on: thread, pool)
        thread.stop()
        #expect(committed == Array(repeating: true, count: 10))
        #expect(pool.writeStatistics.transactions - before.transactions == 1)
        #expect(pool.writeStatistics.writes - before.writes == 10)
        #expect(try await rowCount(pool) == 10)
    }

    @Test func queuedWritesWaitForTheEndOfTheRound() async throws {
        let thread = RoundThread()
        let pool = try await makePoolWithTable(in: directory, DatabaseConfiguration(roundExecutor: thread))
        let before = pool.writeStatistics
        // The writer thread that committed the table may still be in its drain loop, and would take the write.
        while pool.writer.queue.withLock({ $0.isDraining }) { usleep(1_000) }
        let writer = Task(executorPreference: thread) {
            try await pool.write { try $0.execute(sql: "INSERT INTO t VALUES (1)") }
        }
        let probe = Task(executorPreference: thread) { () -> (pending: Int, transactions: Int) in
            usleep(50_000)  // the round goes on: a writer thread woken by the write would have committed it by now
            return (pool.pendingWriteCount, pool.writeStatistics.transactions - before.transactions)
        }
        thread.open()
        let seen = await probe.value
        try await writer.value
        thread.stop()
        #expect(seen.pending == 1 && seen.transactions == 0, "\(seen)")
        #expect(pool.writeStatistics.transactions - before.transactions == 1)
    }

    @Test func aRoundBeyondMaxWriteBatchLeavesTheRestToTheWriterThread() async throws {
        let thread = RoundThread()
        let pool = try await makePoolWithTable(in: directory, DatabaseConfiguration(maxWriteBatch: 3, roundExecutor: thread))
        let before = pool.writeStatistics
        let committed = await insertInOneRound(Array(0..<7), on: thread, pool)
        thread.stop()
        #expect(committed == Array(repeating: true, count: 7))
        #expect(pool.writeStatistics.transactions - before.transactions == 3)  // 3 on the round's thread, 3 + 1 after
        #expect(try await rowCount(pool) == 7)
    }

    @Test func aFailingWriteInARoundIsRolledBackAlone() async throws {
        let thread = RoundThread()
        let pool = try await makePoolWithTable(in: directory, DatabaseConfiguration(roundExecutor: thread))
        try await pool.write { try $0.execute(sql: "INSERT INTO t VALUES (100)") }
        let committed = await insertInOneRound([1, 100, 2, 3], on: thread, pool)
        thread.stop()
        #expect(committed == [true, false, true, true])
        #expect(try await rowCount(pool) == 4)
    }

    /// A round's commit never waits for another connection's write lock (another process: `sqlite3`, an operator's
    /// command): the batch goes to the writer thread, which waits it out, and the round's thread runs on. Found by
    /// a black-box review: an event loop waited in SQLite's busy handler, every deadline of that loop with it.
    @Test func aRoundsCommitDoesNotWaitForAnotherConnectionsLock() async throws {
        let thread = RoundThread()
        let pool = try await makePoolWithTable(in: directory, DatabaseConfiguration(busyTimeoutMilliseconds: 20_000,
                                                                                   roundExecutor: thread))
        while pool.writer.queue.withLock({ $0.isDraining }) { usleep(1_000) }
        // Patient itself: on a loaded machine the pool's writer may still be finishing the table's commit.
        let other = try Database(path: directory.path(),
                                 configuration: DatabaseConfiguration(busyTimeoutMilliseconds: 60_000))
        try other.execute(sql: "BEGIN IMMEDIATE TRANSACTION")
        let writer = Task(executorPreference: thread) {
            try await pool.write { try $0.execute(sql: "INSERT INTO t VALUES (1)") }
        }
        thread.open()
        try await Task.sleep(for: .milliseconds(100))  // the round that queued the write has ended
        let asked = ContinuousClock.now
        let answered = await Task(executorPreference: thread) { ContinuousClock.now }.value
        #expect(answered - asked < .seconds(10), "the round's thread ran \(answered - asked) after it was asked")
        #expect(try await rowCount(pool) == 0)
        try other.execute(sql: "COMMIT TRANSACTION")
        try await writer.value
        #expect(try await rowCount(pool) == 1)
        thread.stop()
        other.close()
    }

    @Test func otherThreadsStillWakeTheWriter() async throws {
        let thread = RoundThread()  // never opened: it runs no round
        let pool = try await makePoolWithTable(in: directory, DatabaseConfiguration(roundExecutor: thread))
        try await pool.write { try $0.execute(sql: "INSERT INTO t VALUES (1)") }
        #expect(try await rowCount(pool) == 1)
        thread.open()
        thread.stop()
    }

    @Test func theWALLimitHoldsWhenRoundsCommit() async throws {
        let thread = RoundThread()
        let configuration = DatabaseConfiguration(checkpointThresholdPages: 4, walLimitBytes: 256 << 10,
                                                  roundExecutor: thread)
        let pool = try await makePoolWithTable(in: directory, configuration)
        try await pool.write { try $0.execute(sql: "CREATE TABLE pad (b BLOB)") }
        thread.open()
        for round in 0..<20 {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<10 {
                    group.addTask(executorPreference: thread) {
                        try await pool.write { db in
                            try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [round * 10 + index])
                            try db.execute(sql: "INSERT INTO pad VALUES (?)", arguments: [[UInt8](repeating: 7, count: 8192)])
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        thread.stop()
        // 200 writes of > 8 KiB: 1.6 MB of WAL without restarts; the writer restarts it at 256 KiB, also when the
        // batch that reached the limit was committed on the round's thread.
        let walSize = try FileManager.default.attributesOfItem(atPath: directory.path() + "-wal")[.size] as? Int ?? 0
        #expect(walSize < 1_000_000, "the WAL grew to \(walSize) bytes")
        #expect(pool.writeStatistics.checkpoints > 0)
        #expect(try await rowCount(pool) == 200)
    }
}

/// Writes that may wait (`WriteUrgency.mayWait`) commit with the next prompt write, when the round executor has
/// nothing else to do, or when their wait ends.
struct WaitingCommitTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    private func makePool(_ thread: RoundThread, commitWait: Duration) async throws -> DatabasePool {
        let pool = try await makePoolWithTable(
            in: directory, DatabaseConfiguration(commitWait: commitWait, roundExecutor: thread))
        // The writer thread that committed the table may still be in its drain loop, and would take the writes.
        while pool.writer.queue.withLock({ $0.isDraining }) { usleep(1_000) }
        return pool
    }

    private func insert(_ value: Int, _ urgency: WriteUrgency, on thread: RoundThread, _ pool: DatabasePool)
        -> Task<Void, any Error>
    {
        Task(executorPreference: thread) {
            try await pool.write(urgency: urgency) { try $0.execute(sql: "INSERT INTO t VALUES (?)", arguments: [value]) }
        }
    }

    private func waitUntilPending(_ count: Int, _ pool: DatabasePool) {
        while pool.pendingWriteCount < count { usleep(1_000) }
    }

    @Test func writesThatMayWaitInSeveralRoundsShareTheNextPromptCommit() async throws {
        let thread = RoundThread()
        thread.open()
        let pool = try await makePool(thread, commitWait: .seconds(3_600))
        let before = pool.writeStatistics
        let first = insert(1, .mayWait, on: thread, pool)
        waitUntilPending(1, pool)
        let second = insert(2, .mayWait, on: thread, pool)
        waitUntilPending(2, pool)
        #expect(pool.writeStatistics.transactions == before.transactions)
        #expect(thread.delayedCount == 1)  // one timer for both
        try await insert(3, .prompt, on: thread, pool).value
        try await first.value
        try await second.value
        #expect(pool.writeStatistics.transactions - before.transactions == 1)
        #expect(pool.writeStatistics.writes - before.writes == 3)
        #expect(try await rowCount(pool) == 3)
        thread.stop()
    }

    @Test func aWriteThatMayWaitCommitsAloneWhenItsWaitEnds() async throws {
        let thread = RoundThread()
        thread.open()
        let pool = try await makePool(thread, commitWait: .milliseconds(20))
        let before = pool.writeStatistics
        try await insert(1, .mayWait, on: thread, pool).value
        #expect(pool.writeStatistics.transactions - before.transactions == 1)
        #expect(thread.delayedCount == 0)
        // The timer disarmed: the next write that may wait arms another and commits too.
        try await insert(2, .mayWait, on: thread, pool).value
        #expect(try await rowCount(pool) == 2)
        thread.stop()
    }

    @Test func aWriteThatMayWaitCommitsWhenTheExecutorIsIdleWithNoTimer() async throws {
        let thread = RoundThread(tellsIdle: true)
        thread.open()
        let pool = try await makePool(thread, commitWait: .seconds(3_600))
        let before = pool.writeStatistics
        try await insert(1, .mayWait, on: thread, pool).value
        #expect(thread.delayedCount == 0)  // no timer was armed
        try await insert(2, .mayWait, on: thread, pool).value
        #expect(pool.writeStatistics.transactions - before.transactions == 2)
        #expect(try await rowCount(pool) == 2)
        thread.stop()
    }

    @Test func aWriteThatMayWaitOffTheRoundThreadGoesToTheWriter() async throws {
        let thread = RoundThread()  // never opened: the writes below are queued off its thread
        let pool = try await makePool(thread, commitWait: .seconds(3_600))
        try await pool.write(urgency: .mayWait) { try $0.execute(sql: "INSERT INTO t VALUES (1)") }
        #expect(try await rowCount(pool) == 1)
        #expect(thread.delayedCount == 0)
        thread.open()
        thread.stop()
    }

    @Test func aZeroWaitCommitsAtTheEndOfTheRound() async throws {
        let thread = RoundThread()
        thread.open()
        let pool = try await makePool(thread, commitWait: .zero)
        try await insert(1, .mayWait, on: thread, pool).value
        #expect(thread.delayedCount == 0)
        #expect(try await rowCount(pool) == 1)
        thread.stop()
    }
}
