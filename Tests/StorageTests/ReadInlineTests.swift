import Dispatch
import Glibc
import Synchronization
import Testing
@testable import Storage

/// `readInline` runs on the calling thread when a reader is idle, and waits in line like `read` when none is.
struct ReadInlineTests {
    struct Failure: Error {}

    private func makePool(readerCount: Int) async throws -> (DatabasePool, TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.path(), configuration: DatabaseConfiguration(readerCount: readerCount))
        try await pool.write { db in
            try db.executeScript("CREATE TABLE t (a INTEGER PRIMARY KEY)")
            try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [7])
        }
        return (pool, directory)
    }

    @Test func runsOnTheCallingThreadAndSeesCommittedWrites() async throws {
        let (pool, directory) = try await makePool(readerCount: 1)
        let caller = pthread_self()
        let (value, thread) = try await pool.readInline { db -> (Int?, pthread_t) in
            (try db.fetchOne(sql: "SELECT a FROM t") { try $0[0] as Int }, pthread_self())
        }
        #expect(value == 7)
        #expect(thread == caller)
        try await pool.write { try $0.execute(sql: "INSERT INTO t VALUES (?)", arguments: [8]) }
        #expect(try await pool.readInline { try $0.fetchOne(sql: "SELECT count(*) FROM t") { try $0[0] as Int } } == 2)
        await #expect(throws: Failure.self) { try await pool.readInline { _ in throw Failure() } }
        _ = directory
    }

    @Test func waitsInLineWhenEveryReaderIsBusy() async throws {
        let (pool, directory) = try await makePool(readerCount: 1)
        let release = DispatchSemaphore(value: 0)
        let started = Atomic<Bool>(false)
        let blocker = Task {
            try await pool.read { _ in
                started.store(true, ordering: .sequentiallyConsistent)
                release.wait()
            }
        }
        while !started.load(ordering: .sequentiallyConsistent) { try await Task.sleep(for: .milliseconds(1)) }
        let finished = Atomic<Bool>(false)
        let waiting = Task {
            let value = try await pool.readInline { try $0.fetchOne(sql: "SELECT a FROM t") { try $0[0] as Int } }
            finished.store(true, ordering: .sequentiallyConsistent)
            return value
        }
        try await Task.sleep(for: .milliseconds(50))
        let finishedEarly = finished.load(ordering: .sequentiallyConsistent)
        #expect(!finishedEarly)  // the only reader is busy: it waited
        release.signal()
        #expect(try await waiting.value == 7)
        try await blocker.value
        _ = directory
    }
}
