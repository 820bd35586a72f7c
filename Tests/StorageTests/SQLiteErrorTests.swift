import CSQLite
import Foundation
import Testing
@testable import Storage

struct SQLiteErrorTests {
    let directory: TemporaryDirectory
    let database: Database

    init() throws {
        directory = try TemporaryDirectory()
        database = try Database(path: directory.path())
        try database.executeScript("""
            CREATE TABLE parent (id INTEGER PRIMARY KEY, email TEXT UNIQUE);
            CREATE TABLE child (parent_id INTEGER NOT NULL REFERENCES parent(id) ON DELETE CASCADE);
            """)
    }

    /// A code raised outside a statement (a backup step's) gets SQLite's text for it, not the connection's stale
    /// "not an error". Found by an audit: a backup to a full disk said "SQLite failed: not an error".
    @Test func aCodeTheConnectionDidNotRecordIsDescribedBySQLite() throws {
        let error = SQLiteError(code: SQLITE_FULL, connection: database.handle, sql: nil)
        #expect(error.extendedCode == SQLITE_FULL)
        #expect(error.message == "database or disk is full")
    }

    @Test func uniqueViolationIsTypedAndNeverShowsTheValue() throws {
        let secret = "secret-value@example.com"
        try database.execute(sql: "INSERT INTO parent (email) VALUES (?)", arguments: [secret])
        let error = try #require(throws: SQLiteError.self) {
            try database.execute(sql: "INSERT INTO parent (email) VALUES (?)", arguments: [secret])
        }
        #expect(error.reason == .uniqueConstraint)
        #expect(error.extendedCode == 2067)
        #expect(error.sql == "INSERT INTO parent (email) VALUES (?)")
        #expect(error.message.contains("UNIQUE"))
        #expect(!error.description.contains(secret))
    }

    /// An error shows the SQL that failed on one line, whatever the lines it was written on, on both engines: a
    /// log line stays one line. Found by an audit.
    @Test func theFailedSQLShowsOnOneLine() throws {
        let sql = """
            INSERT INTO parent (email)
                VALUES (?)
            """
        try database.execute(sql: sql, arguments: ["one@example.com"])
        let failure = try #require(throws: SQLiteError.self) {
            try database.execute(sql: sql, arguments: ["one@example.com"])
        }
        #expect(failure.sql == sql)
        let shown = failure.description
        #expect(shown.hasSuffix("(while executing `INSERT INTO parent (email) VALUES (?)`)"), "\(shown)")
        let postgres = PostgresError(sqlState: "25006", message: "read-only", sql: "INSERT INTO t\n\tVALUES ($1)\r\n")
        #expect(!postgres.description.contains("\n") && !postgres.description.contains("\r"), "\(postgres)")
        #expect(postgres.description.contains("read-only in INSERT INTO t VALUES ($1); "), "\(postgres)")
    }

    @Test func primaryKeyViolationIsUnique() throws {
        try database.execute(sql: "INSERT INTO parent (id) VALUES (?)", arguments: [1])
        let error = try #require(throws: SQLiteError.self) {
            try database.execute(sql: "INSERT INTO parent (id) VALUES (?)", arguments: [1])
        }
        #expect(error.reason == .uniqueConstraint && error.extendedCode == 1555)
    }

    @Test func foreignKeyViolationIsTyped() throws {
        let error = try #require(throws: SQLiteError.self) {
            try database.execute(sql: "INSERT INTO child (parent_id) VALUES (?)", arguments: [42])
        }
        #expect(error.reason == .foreignKeyConstraint && error.extendedCode == 787)
    }

    @Test func lockHeldPastTheTimeoutIsBusy() throws {
        let other = try Database(path: directory.path(), configuration: .init(busyTimeoutMilliseconds: 0))
        try database.execute(sql: "BEGIN IMMEDIATE TRANSACTION")
        defer { database.rollback() }
        let error = try #require(throws: SQLiteError.self) { try other.execute(sql: "BEGIN IMMEDIATE TRANSACTION") }
        #expect(error.reason == .busy && error.primaryCode == 5)
    }

    @Test func syntaxErrorIsOtherWithTheSQL() throws {
        let error = try #require(throws: SQLiteError.self) { try database.execute(sql: "SELEC 1") }
        #expect(error.reason == .other && error.primaryCode == 1 && error.sql == "SELEC 1")
    }

    @Test func cannotOpenAMissingDirectory() throws {
        let error = try #require(throws: SQLiteError.self) {
            try Database(path: directory.path("missing/dir/x.sqlite"))
        }
        #expect(error.primaryCode == 14)
    }
}
