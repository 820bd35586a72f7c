import Foundation
import Storage
import TestSupport
import Testing
@testable import App

/// A migration on PostgreSQL beside the writes of an instance of the previous build, which goes on serving during a
/// rolling upgrade (README, "Upgrades that bring a migration").
@Suite(.postgres, .timeLimit(.minutes(3)))
struct PostgresUpgradeLockTests {
    /// Migration 15 waits for an account's deletion, then applies; the deletion commits. Found by a review: the
    /// migration altered `sessions` before `users`, the deletion locks `users` first, and PostgreSQL ended one of
    /// them with a deadlock (40P01): the new instance's start, or the user's request.
    @Test func migrationFifteenWaitsForAnAccountDeletionInsteadOfDeadlocking() async throws {
        let pool = try PostgresPool(url: try PostgresURL(try await PostgresCluster.sharedCluster().newDatabase()), size: 4)
        try await AppMigrations.migrator.migrate(pool, upTo: 14)
        let user = UUID()
        try await pool.write([
            SQL("""
                INSERT INTO users (id, name, username, email, siwa_identifier, created_at, updated_at)
                VALUES (?, 'A', 'a', 'a@example.com', '001.a', now(), now())
                """, [user]),
            SQL("INSERT INTO sessions (id, data, user_id, expires_at) VALUES ('s', '{}', ?, now() + interval '1 day')",
                [user]),
        ])
        // A statement on sessions that takes a while (a sweep of a large table): the migration queues behind it.
        let slow = Task { try await pool.read(SQL("SELECT pg_sleep(1.5) FROM sessions LIMIT 1")) { _ in 0 } }
        try await Task.sleep(for: .milliseconds(200))
        let migration = Task { try await AppMigrations.migrator.migrate(pool) }
        try await Task.sleep(for: .milliseconds(300))
        // The previous build's deletion (`UserRepository.delete`): one pipelined transaction, `users` first.
        let deletion = Task {
            try await pool.write([
                SQL("SELECT 1 FROM users WHERE id = ? FOR UPDATE", [user]),
                SQL("DELETE FROM tokens WHERE user_id = ?", [user]),
                SQL("DELETE FROM sessions WHERE user_id = ?", [user]),
                SQL("DELETE FROM users WHERE id = ?", [user]),
            ])
        }
        _ = try await slow.value
        var failures: [String] = []
        do { _ = try await migration.value } catch { failures.append("migration: \(error)") }
        do { _ = try await deletion.value } catch { failures.append("deletion: \(error)") }
        #expect(failures.isEmpty, "\(failures)")
        #expect(try await pool.readOne(SQL("SELECT count(*) FROM users")) { try $0[0] as Int } == 0)
        await pool.close()
    }
}
