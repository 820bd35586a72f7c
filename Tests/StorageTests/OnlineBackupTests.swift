import Foundation
import Glibc
import Synchronization
import Testing
@testable import Storage

/// `Database.backup(to:countingRowsOf:)`: one consistent snapshot while another connection writes, checked and
/// linked into place; never an overwrite, nothing left behind on failure.
struct OnlineBackupTests {
    private func makeDatabase(_ directory: TemporaryDirectory, rows: Int) throws -> Database {
        let database = try Database(path: directory.path())
        try database.executeScript("CREATE TABLE items (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        try database.transaction {
            for index in 0..<rows {
                try database.execute(sql: "INSERT INTO items (body) VALUES (?)",
                                     arguments: ["row \(index) " + String(repeating: "x", count: 200)])
            }
        }
        return database
    }

    @Test func copiesOneSnapshotWhileAnotherConnectionWrites() throws {
        let directory = try TemporaryDirectory()
        _ = try makeDatabase(directory, rows: 2_000)
        let source = try Database(path: directory.path(), readOnly: true)
        nonisolated(unsafe) let writer = try Database(path: directory.path())  // used by the thread, then here
        let stop = Atomic(false)
        let thread = Thread {
            while !stop.load(ordering: .relaxed) {
                try? writer.execute(sql: "INSERT INTO items (body) VALUES ('during')")
            }
        }
        thread.start()
        // One page per step with a pause: the writer commits many times while the copy is made.
        let report = try source.backup(to: directory.path("copy.sqlite"), countingRowsOf: "items", pagesPerStep: 1,
                                       pause: .microseconds(200))
        stop.store(true, ordering: .relaxed)
        while !thread.isFinished { usleep(1_000) }
        #expect(report.rowCount >= 2_000)
        #expect(report.bytes > 2_000 * 200)
        let copy = try Database(path: directory.path("copy.sqlite"), readOnly: true)
        #expect(try copy.fetchOne(sql: "PRAGMA integrity_check") { row -> String in try row[0] } == "ok")
        #expect(try copy.fetchOne(sql: "SELECT count(*) FROM items") { row -> Int in try row[0] } == report.rowCount)
        let total = try writer.fetchOne(sql: "SELECT count(*) FROM items") { row -> Int in try row[0] } ?? 0
        #expect(total > report.rowCount, "the writer went on committing during the copy")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(names.filter { $0.contains("siwa-backup") }.isEmpty, "the temporary copy is gone")
    }

    @Test func refusesAnExistingDestinationAndLeavesItAlone() throws {
        let directory = try TemporaryDirectory()
        let database = try makeDatabase(directory, rows: 10)
        let destination = directory.path("copy.sqlite")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: destination))
        #expect(throws: Database.BackupError(reason: .destinationExists, path: destination)) {
            try database.backup(to: destination, countingRowsOf: "items")
        }
        #expect(try String(contentsOfFile: destination, encoding: .utf8) == "keep me")
    }

    @Test func aMissingFolderIsAClearErrorWithNothingLeftBehind() throws {
        let directory = try TemporaryDirectory()
        let database = try makeDatabase(directory, rows: 10)
        let destination = directory.path("missing/copy.sqlite")
        #expect(throws: Database.BackupError(reason: .cannotCreate(String(cString: strerror(ENOENT))), path: destination)) {
            try database.backup(to: destination, countingRowsOf: "items")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
            == ["test.sqlite", "test.sqlite-shm", "test.sqlite-wal"])
    }

    @Test func migrationStatusIsReadWithoutWriting() throws {
        let directory = try TemporaryDirectory()
        var migrator = Migrator()
        migrator.register(version: 1, name: "one") { try $0.executeScript("CREATE TABLE one (id INTEGER)") }
        migrator.register(version: 2, name: "two") { try $0.executeScript("CREATE TABLE two (id INTEGER)") }
        let writer = try Database(path: directory.path())
        let reader = try Database(path: directory.path(), readOnly: true)
        #expect(try migrator.status(reader) == .init(applied: [], pending: [1, 2], unknown: []))
        #expect(try writer.fetchOne(sql: "SELECT count(*) FROM sqlite_schema") { row -> Int in try row[0] } == 0,
                "status never creates schema_migrations")
        try migrator.migrate(writer, upTo: 1)
        #expect(try migrator.status(reader) == .init(applied: [1], pending: [2], unknown: []))
        try migrator.migrate(writer)
        #expect(try migrator.status(reader).isCurrent)
        var older = Migrator()
        older.register(version: 1, name: "one") { _ in }
        #expect(try older.status(reader) == .init(applied: [1, 2], pending: [], unknown: [2]))
    }
}
