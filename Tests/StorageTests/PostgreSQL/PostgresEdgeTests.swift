import Foundation
import IOCore
import Testing
import TestSupport
@testable import Storage

/// The driver at PostgreSQL's edges: a schema change under a prepared statement, an error at a pipeline's commit,
/// text that is not UTF-8. Found by a review.
@Suite(.postgres, .timeLimit(.minutes(2)))
struct PostgresEdgeTests {
    private func pool(url: String? = nil) async throws -> PostgresPool {
        let database: String
        if let url { database = url } else { database = try await PostgresCluster.sharedCluster().newDatabase() }
        return try PostgresPool(url: try PostgresURL(database), size: 1, connectTimeout: .seconds(5 * Sanitizer.timeScale))
    }

    private func backend(_ pool: PostgresPool) async throws -> Int {
        try #require(try await pool.readOne(SQL("SELECT pg_backend_pid()")) { try $0[0] as Int })
    }

    /// A column whose type changed under a prepared statement ("cached plan must not change result type") costs
    /// that connection, once, as a 503; the next call prepares the statement again on a new one. It was a 500 on
    /// every call until the process restarted.
    @Test(arguments: ["ALTER TABLE u ALTER COLUMN name TYPE varchar(200)", "ALTER TABLE u ADD COLUMN extra text"])
    func aStatementWhoseTableChangedIsPreparedAgain(change: String) async throws {
        let pool = try await pool()
        try await pool.write(SQL("CREATE TABLE u (id bigint PRIMARY KEY, name text NOT NULL)"))
        try await pool.write(SQL("INSERT INTO u VALUES (?, ?)", [1, "Ann"]))
        let query = change.contains("ADD") ? "SELECT * FROM u WHERE id = ?" : "SELECT name FROM u WHERE id = ?"
        let column = change.contains("ADD") ? 1 : 0
        #expect(try await pool.read(SQL(query, [1])) { try $0[column] as String } == ["Ann"])
        try await pool.write(SQL(change))
        do {
            _ = try await pool.read(SQL(query, [1])) { try $0[column] as String }
        } catch let error as PostgresError {
            #expect(error.reason == .unavailable, "\(error)")
        }
        for _ in 0..<3 { #expect(try await pool.read(SQL(query, [1])) { try $0[column] as String } == ["Ann"]) }
    }

    /// An error at a pipelined write's commit (here a deferred unique constraint) is that error, on a connection
    /// that is kept; it was taken for a lost connection (a 503) and the connection dropped.
    @Test func anErrorAtAPipelinesCommitIsThatErrorAndTheConnectionIsKept() async throws {
        let pool = try await pool()
        try await pool.write(SQL("CREATE TABLE d (id bigint UNIQUE DEFERRABLE INITIALLY DEFERRED)"))
        try await pool.write(SQL("INSERT INTO d VALUES (?)", [1]))
        let before = try await backend(pool)
        let error = await #expect(throws: PostgresError.self) {
            try await pool.write([SQL("INSERT INTO d VALUES (?)", [2]), SQL("INSERT INTO d VALUES (?)", [1])])
        }
        #expect(error?.sqlState == "23505", "\(String(describing: error))")
        #expect(error?.reason == .uniqueConstraint)
        #expect(try await backend(pool) == before, "the connection is kept")
        #expect(try await pool.readOne(SQL("SELECT count(*) FROM d")) { try $0[0] as Int } == 1, "rolled back")
        try await pool.write([SQL("INSERT INTO d VALUES (?)", [3]), SQL("INSERT INTO d VALUES (?)", [4])])
        #expect(try await pool.readOne(SQL("SELECT count(*) FROM d")) { try $0[0] as Int } == 3)
    }

    /// Text another tool stored that is not UTF-8 (a SQL_ASCII database) is a decoding error, not text with U+FFFD
    /// in its place, which a write-back would store changed.
    @Test func textThatIsNotUTF8IsAnError() async throws {
        let cluster = try await PostgresCluster.sharedCluster()
        let name = "ascii_" + UUID().uuidString.prefix(8).lowercased()
        try await offThePool {
            _ = try cluster.query("CREATE DATABASE \(name) ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0")
        }
        let pool = try await pool(url: cluster.url(database: name))
        try await pool.write(SQL("CREATE TABLE n (id bigint PRIMARY KEY, name text NOT NULL)"))
        try await pool.write(SQL("INSERT INTO n VALUES (1, E'Zo\\353')"))
        await #expect(throws: (any Error).self) {
            _ = try await pool.readOne(SQL("SELECT name FROM n WHERE id = 1")) { try $0[0] as String }
        }
        let bytes = try await pool.readOne(SQL("SELECT name::bytea FROM n WHERE id = 1")) { try $0[0] as [UInt8] }
        #expect(bytes == Array("Zo".utf8) + [0xEB], "stored as it was")
    }
}
