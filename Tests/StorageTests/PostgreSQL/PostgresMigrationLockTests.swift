import Foundation
import Synchronization
import Testing
import TestSupport
@testable import Storage

/// A migration whose `ALTER TABLE` finds the table's lock held by a long reader (a `pg_dump`, a report) waits for it
/// at most `Migrator.postgresLockTimeout` at a time, then rolls back, pauses and tries again. The running instances'
/// statements on that table, queued behind each attempt, go through between attempts. Found by a review: one
/// waiting `ALTER` held every statement on the table, and the previous build's instances answered 503 for the 30 s
/// of a read.
@Suite(.postgres, .timeLimit(.minutes(2)))
struct PostgresMigrationLockTests {
    private static func migrator(upTo version: Int) -> Migrator {
        var migrator = Migrator()
        migrator.register(version: 1, name: "t", postgres: ["CREATE TABLE t (id bigint PRIMARY KEY)"]) { _ in }
        if version >= 2 {
            migrator.register(version: 2, name: "t extra", postgres: ["ALTER TABLE t ADD COLUMN extra text"]) { _ in }
        }
        return migrator
    }

    @Test func aMigrationBehindALongReaderLetsTheOthersStatementsThrough() async throws {
        let url = try await PostgresCluster.sharedCluster().newDatabase()
        let serving = try PostgresPool(url: try PostgresURL(url), size: 1)
        try await Self.migrator(upTo: 1).migrate(serving)
        try await serving.write(SQL("INSERT INTO t VALUES (1)"))

        let reader = try PsqlSession(url: url)
        defer { reader.close() }
        reader.send("BEGIN; SELECT count(*) FROM t;")
        let readersOfT = SQL("""
            SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
            WHERE c.relname = 't' AND l.mode = 'AccessShareLock' AND l.pid <> pg_backend_pid()
            """)
        while try await serving.readOne(readersOfT, { try $0[0] as Int }) == 0 {
            try await Task.sleep(for: .milliseconds(20))
        }

        let attempts = Atomic<Int>(0)
        let migrating = try PostgresPool(url: try PostgresURL(url), size: 1)
        let migration = Task {
            try await Self.migrator(upTo: 2).migrate(migrating) { version, count in
                if version == 2 { attempts.store(count, ordering: .relaxed) }
            }
        }
        while attempts.load(ordering: .relaxed) < 2 { try await Task.sleep(for: .milliseconds(20)) }
        // The serving instance's statements on the table answer while the migration waits: each waits behind one
        // attempt at most. Before, they waited behind the ALTER until the reader ended, past their 10 s timeout.
        for _ in 0..<3 {
            let started = ContinuousClock.now
            #expect(try await serving.readOne(SQL("SELECT count(*) FROM t")) { try $0[0] as Int } == 1)
            try await serving.write(SQL("UPDATE t SET id = id"))
            #expect(ContinuousClock.now - started < PostgresPool.statementTimeout / 2)
        }
        reader.send("COMMIT;")
        #expect(try await migration.value == [2])
        #expect(try await serving.read(SQL("SELECT extra FROM t")) { try $0[0] as String? } == [nil])
    }
}
