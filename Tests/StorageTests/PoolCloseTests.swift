import Foundation
import Testing
@testable import Storage

/// `DatabasePool.close()`, a clean shutdown: what is queued commits, the WAL goes into the database file, and the
/// `-wal` and `-shm` files are gone, so that a backup copied over the file is not mixed with a stale WAL.
struct PoolCloseTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    private func exists(_ suffix: String) -> Bool {
        FileManager.default.fileExists(atPath: directory.path() + suffix)
    }

    /// The rows of `t` read from the file alone, on a connection of its own.
    private func rowsInFile() throws -> Int {
        let database = try Database(path: directory.path(), readOnly: true)
        #expect(try database.fetchOne(sql: "PRAGMA integrity_check") { try $0[0] as String } == "ok")
        return try database.fetchOne(sql: "SELECT count(*) FROM t") { try $0[0] as Int } ?? 0
    }

    @Test func closeLeavesTheDatabaseAloneWithEveryCommittedRow() async throws {
        let pool = try await makePoolWithTable(in: directory)
        for value in 1...50 { try await pool.write(SQL("INSERT INTO t VALUES (?)", [value])) }
        #expect(try await rowCount(pool) == 50)
        #expect(exists("-wal") && exists("-shm"), "WAL mode while open")
        await pool.close()
        #expect(!exists("-wal"))
        #expect(!exists("-shm"))
        #expect(try rowsInFile() == 50)
    }

    @Test func writesQueuedBeforeCloseCommitAndLaterWorkIsRefused() async throws {
        let pool = try await makePoolWithTable(in: directory)
        let block = try await WriterBlock(pool)
        let queued = (1...10).map { value in
            Task { try await pool.write(SQL("INSERT INTO t VALUES (?)", [value])) }
        }
        while pool.pendingWriteCount < queued.count { try await Task.sleep(for: .milliseconds(2)) }
        let closing = Task { await pool.close() }
        while pool.pendingWriteCount < queued.count + 1 { try await Task.sleep(for: .milliseconds(2)) }
        await #expect(throws: SQLiteError.self) { try await pool.write(SQL("INSERT INTO t VALUES (?)", [99])) }
        try await block.finish()
        for write in queued { #expect(try await write.value.changes == 1) }
        await closing.value
        await #expect(throws: SQLiteError.self) { try await rowCount(pool) }
        await #expect(throws: SQLiteError.self) {
            try await pool.readInline { try $0.fetchOne(sql: "SELECT 1") { try $0[0] as Int } }
        }
        await #expect(throws: SQLiteError.self) { try await pool.writeWithoutTransaction { _ in } }
        await pool.close()
        #expect(!exists("-wal") && !exists("-shm"))
        #expect(try rowsInFile() == 10)
    }

    @Test func readsInFlightFinishBeforeTheirConnectionCloses() async throws {
        let pool = try await makePoolWithTable(in: directory, DatabaseConfiguration(readerCount: 1))
        try await pool.write(SQL("INSERT INTO t VALUES (?)", [1]))
        let reads = (0..<20).map { _ in Task { try await rowCount(pool) } }
        await pool.close()
        for read in reads {
            switch await read.result {
            case .success(let count): #expect(count == 1)
            case .failure(let error): #expect(error is SQLiteError, "refused once closed, never anything else")
            }
        }
        #expect(!exists("-wal") && !exists("-shm"))
    }
}
