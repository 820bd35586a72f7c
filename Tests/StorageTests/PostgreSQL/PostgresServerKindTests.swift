import Foundation
import Testing
import TestSupport
@testable import Storage

/// Connections that reach the wrong kind of server: a read-only one (a standby, or a demoted primary) is dropped
/// and answered as unavailable with a hint; with `DATABASE_PREPARED_STATEMENTS=off` nothing is prepared, so a pooler
/// in transaction mode can carry every statement.
@Suite(.postgres, .timeLimit(.minutes(2)))
struct PostgresServerKindTests {
    private func pool(preparedStatements: Bool = true) async throws -> (PostgresPool, String) {
        let url = try await PostgresCluster.sharedCluster().newDatabase()
        let pool = try PostgresPool(url: try PostgresURL(url), size: 1, connectTimeout: .seconds(5 * Sanitizer.timeScale),
                                    preparedStatements: preparedStatements)
        return (pool, url)
    }

    private func preparedCount(_ pool: PostgresPool) async throws -> Int {
        try await pool.readOne(SQL("SELECT count(*)::bigint FROM pg_prepared_statements")) { try $0[0] as Int } ?? -1
    }

    @Test func unnamedStatementsLeaveNothingPrepared() async throws {
        let (pool, _) = try await pool(preparedStatements: false)
        try await pool.write(SQL("CREATE TABLE t (id bigint PRIMARY KEY, name text NOT NULL)"))
        let results = try await pool.write([
            SQL("INSERT INTO t VALUES (?, ?)", [1, "one"]),
            SQL("INSERT INTO t VALUES (?, ?) RETURNING id", [2, "two"]),
        ])
        #expect(try results[1].first { try $0[0] as Int } == 2)
        #expect(try await pool.read(SQL("SELECT name FROM t WHERE id = ?", [1])) { try $0[0] as String } == ["one"])
        #expect(try await preparedCount(pool) == 0)
        let duplicate = await #expect(throws: PostgresError.self) {
            try await pool.write(SQL("INSERT INTO t VALUES (?, ?)", [1, "again"]))
        }
        #expect(duplicate?.reason == .uniqueConstraint, "errors keep their meaning")
    }

    @Test func preparedStatementsArePreparedOncePerConnection() async throws {
        let (pool, _) = try await pool()
        for _ in 0..<3 { _ = try await pool.read(SQL("SELECT ?::bigint", [7])) { try $0[0] as Int } }
        #expect(try await preparedCount(pool) >= 1)
    }

    @Test func aReadOnlyServerIsUnavailableWithAHintAndItsConnectionIsDropped() async throws {
        let (pool, url) = try await pool()
        try await pool.write(SQL("CREATE TABLE t (id bigint PRIMARY KEY)"))
        let database = String(url.split(separator: "/").last ?? "")
        let admin = try PostgresPool(url: try PostgresURL(try await PostgresCluster.sharedCluster().url()), size: 1)
        try await admin.write(SQL("ALTER DATABASE \(database) SET default_transaction_read_only = on"))
        // The setting applies to new sessions: the pool's one connection ends first (as a failover ends it).
        try await admin.write(SQL("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ?", [database]))
        _ = try? await pool.read(SQL("SELECT 1")) { _ in true }
        // Reads too: the server reports default_transaction_read_only on, and its connection is not used at all
        // (found by an audit: reads went on being served from a server that took no writes).
        let read = await #expect(throws: PostgresError.self) { try await pool.read(SQL("SELECT 1")) { _ in true } }
        #expect(read?.sqlState == "25006" && read?.reason == .unavailable)
        let refused = await #expect(throws: PostgresError.self) { try await pool.write(SQL("INSERT INTO t VALUES (1)")) }
        #expect(refused?.sqlState == "25006")
        #expect(refused?.reason == .unavailable && refused?.failureKind == .unavailable)
        #expect(refused?.endsConnection == true)
        #expect(refused?.description.contains("read-only") == true)
        #expect(refused?.description.contains("target_session_attrs=read-write") == true)

        try await admin.write(SQL("ALTER DATABASE \(database) SET default_transaction_read_only = off"))
        // The dropped connection is replaced by one that sees the database writable again.
        try await pool.write(SQL("INSERT INTO t VALUES (1)"))
        #expect(try await pool.readOne(SQL("SELECT count(*)::bigint FROM t")) { try $0[0] as Int } == 1)
    }

    @Test(arguments: ["42P05", "26000", "08P01"])
    func poolerSymptomsNameTheSetting(_ state: String) {
        let error = PostgresError(sqlState: state, message: "prepared statement \"siwa_0\" already exists")
        #expect(error.endsConnection && error.reason == .unavailable)
        #expect(error.description.contains("DATABASE_PREPARED_STATEMENTS=off"))
    }
}
