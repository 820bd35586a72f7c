import Foundation
import Glibc
import Testing
@testable import Storage

/// A database file replaced or deleted under a running pool (a backup moved over it, a `-wal` removed by hand) is
/// noticed: every write and read after it fails with `SQLiteError.moved`, a 503, instead of committing into a file
/// no one will open again. Found by an audit: the server went on answering 200, and what it wrote was gone at the
/// next start.
struct FileWatchTests {
    /// A second database at `path`, with a table `copy` in it, closed again: what a restore puts in place.
    private func makeOtherDatabase(at path: String) async throws {
        let other = try DatabasePool(path: path)
        try await other.write { try $0.executeScript("CREATE TABLE copy (a INTEGER)") }
        await other.close()
    }

    private func expectMoved(_ pool: DatabasePool, naming path: String) async throws {
        let write = await #expect(throws: SQLiteError.self) {
            try await pool.write { try $0.execute(sql: "INSERT INTO t (a) VALUES (2)") }
        }
        #expect(write?.isMoved == true)
        #expect(write?.failureKind == .unavailable, "a 503, not a 500")
        #expect(write?.logCause.contains(path) == true)
        #expect(write?.logCause.contains("restart") == true)
        let read = await #expect(throws: SQLiteError.self) { try await rowCount(pool) }
        #expect(read?.isMoved == true, "reads stop too once a write found the change")
        let inline = await #expect(throws: SQLiteError.self) {
            try await pool.readInline { try $0.fetchOne(sql: "SELECT 1") { try $0[0] as Int } }
        }
        #expect(inline?.isMoved == true)
    }

    @Test func aFileMovedOverTheDatabaseStopsWritesAndReads() async throws {
        let directory = try TemporaryDirectory()
        let pool = try await makePoolWithTable(in: directory)
        try await pool.write { try $0.execute(sql: "INSERT INTO t (a) VALUES (1)") }
        try await makeOtherDatabase(at: directory.path("restored.sqlite"))
        #expect(rename(directory.path("restored.sqlite"), directory.path()) == 0)

        try await expectMoved(pool, naming: directory.path())
        await pool.close()
        let reopened = try Database(path: directory.path())
        #expect(try reopened.fetchOne(sql: "SELECT count(*) FROM copy") { try $0[0] as Int } == 0,
                "the file now at the path is the one moved there, untouched")
    }

    @Test func aDeletedDatabaseFileStopsWrites() async throws {
        let directory = try TemporaryDirectory()
        let pool = try await makePoolWithTable(in: directory)
        #expect(unlink(directory.path()) == 0)
        try await expectMoved(pool, naming: directory.path())
        await pool.close()
    }

    @Test func aDeletedWALStopsWrites() async throws {
        let directory = try TemporaryDirectory()
        let pool = try await makePoolWithTable(in: directory)
        try await pool.write { try $0.execute(sql: "INSERT INTO t (a) VALUES (1)") }
        #expect(unlink(directory.path() + "-wal") == 0)
        #expect(unlink(directory.path() + "-shm") == 0)
        try await expectMoved(pool, naming: directory.path() + "-wal")
        await pool.close()
    }

    @Test func aSymlinkPointedElsewhereStopsWrites() async throws {
        let directory = try TemporaryDirectory()
        let link = directory.path("link.sqlite")
        #expect(symlink(directory.path("first.sqlite"), link) == 0)
        let pool = try DatabasePool(path: link)
        try await pool.write { try $0.executeScript("CREATE TABLE t (a INTEGER PRIMARY KEY)") }
        try await makeOtherDatabase(at: directory.path("second.sqlite"))
        #expect(unlink(link) == 0)
        #expect(symlink(directory.path("second.sqlite"), link) == 0)
        try await expectMoved(pool, naming: link)
        await pool.close()
    }

    @Test func aReadAloneNoticesTheChangeOnItsFirstCheck() async throws {
        let directory = try TemporaryDirectory()
        let pool = try await makePoolWithTable(in: directory)
        #expect(unlink(directory.path()) == 0)
        let read = await #expect(throws: SQLiteError.self) { try await rowCount(pool) }
        #expect(read?.isMoved == true, "the pool's first read looks at the files")
        await pool.close()
    }

    @Test func readinessLooksAtTheFilesEveryTime() async throws {
        let directory = try TemporaryDirectory()
        let pool = try await makePoolWithTable(in: directory)
        #expect(await pool.takesWrites())
        #expect(try await rowCount(pool) == 0, "a read that checked the files just now")
        #expect(unlink(directory.path()) == 0)
        #expect(await pool.takesWrites() == false, "not held back by the reads' interval")
        let write = await #expect(throws: SQLiteError.self) {
            try await pool.write { try $0.execute(sql: "INSERT INTO t (a) VALUES (1)") }
        }
        #expect(write?.isMoved == true)
        await pool.close()
    }

    @Test func checkpointsAndTheSameFilesChangeNothing() async throws {
        let directory = try TemporaryDirectory()
        let pool = try await makePoolWithTable(in: directory)
        for value in 1...50 {
            try await pool.write { try $0.execute(sql: "INSERT INTO t (a) VALUES (?)", arguments: [value]) }
        }
        try await pool.writeWithoutTransaction { try $0.checkpointTruncating() }
        #expect(try String(contentsOfFile: directory.path() + "-wal", encoding: .isoLatin1).isEmpty,
                "the WAL was truncated in place")
        try await pool.write { try $0.execute(sql: "INSERT INTO t (a) VALUES (51)") }
        #expect(try await rowCount(pool) == 51)
        await pool.close()
    }

    @Test func theCheckIsTwoStatsOfTheConfiguredPathAndTheResolvedWAL() async throws {
        let directory = try TemporaryDirectory()
        let link = directory.path("link.sqlite")
        #expect(symlink(directory.path("real.sqlite"), link) == 0)
        let pool = try DatabasePool(path: link)
        #expect(pool.writer.fileWatch.databasePath == link)
        #expect(pool.writer.fileWatch.walPath == directory.path("real.sqlite") + "-wal",
                "the -wal lies beside the file SQLite resolved the link to")
        #expect(pool.writer.fileWatch.check() == nil)
        await pool.close()
    }
}
