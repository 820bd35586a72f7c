import Foundation
import Testing
@testable import Storage

/// The failures that mean "the database cannot take writes right now" are typed, and the pool's writer goes on
/// committing once the cause is gone.
struct WriterFaultTests {
    @Test(arguments: [
        (Int32(13), SQLiteError.Reason.full), (8, .readOnly), (1032, .readOnly), (10, .ioError), (778, .ioError),
        (14, .ioError), (5, .busy), (517, .busy), (6, .busy), (1, .other), (19, .other),
    ])
    func reasonFollowsThePrimaryCode(code: Int32, reason: SQLiteError.Reason) {
        #expect(SQLiteError(extendedCode: code, message: "m").reason == reason)
    }

    @Test func onlySQLiteIOErrWriteIsAWriteFailure() {
        #expect(SQLiteError(extendedCode: 778, message: "m").isWriteFailure)  // SQLITE_IOERR_WRITE
        for code: Int32 in [10, 266, 522, 13, 8] {  // IOERR, IOERR_READ, IOERR_SHORT_READ, FULL, READONLY
            #expect(!SQLiteError(extendedCode: code, message: "m").isWriteFailure)
        }
    }

    @Test func aFullDatabaseFailsOnlyThatWriteAndTheWriterRecovers() async throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.path())
        try await pool.write { try $0.executeScript("CREATE TABLE blobs (data BLOB NOT NULL)") }
        let pages = try await pool.writeWithoutTransaction { db in
            try db.fetchOne(sql: "PRAGMA page_count") { try $0[0] as Int } ?? 0
        }
        try await pool.writeWithoutTransaction { try $0.executeScript("PRAGMA max_page_count = \(pages + 2)") }

        let big = [UInt8](repeating: 7, count: 64 * 1024)
        let error = await #expect(throws: SQLiteError.self) {
            try await pool.write { try $0.execute(sql: "INSERT INTO blobs (data) VALUES (?)", arguments: [big]) }
        }
        #expect(error?.reason == .full)
        try await pool.write { try $0.execute(sql: "INSERT INTO blobs (data) VALUES (?)", arguments: [[UInt8](repeating: 1, count: 10)]) }

        try await pool.writeWithoutTransaction { try $0.executeScript("PRAGMA max_page_count = 1073741823") }
        try await pool.write { try $0.execute(sql: "INSERT INTO blobs (data) VALUES (?)", arguments: [big]) }
        let count = try await pool.read { try $0.fetchOne(sql: "SELECT COUNT(*) FROM blobs") { try $0[0] as Int } }
        #expect(count == 2, "the small write beside the failure and the big one after it committed")
    }
}
