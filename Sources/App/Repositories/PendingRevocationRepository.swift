import Foundation
import Storage

/// Apple token revocations that failed after their user was deleted, to retry.
package struct PendingRevocationRepository: Sendable {
    static let columns = "id, client_id, refresh_token, attempts, last_error, created_at"

    let pool: DatabasePool

    package init(pool: DatabasePool) {
        self.pool = pool
    }

    /// Queues `revocation`.
    package func add(_ revocation: PendingRevocation) async throws {
        try await pool.write { db in try Self.insert(revocation, into: db) }
    }

    /// Up to `limit` queued revocations, fewest attempts then oldest first.
    package func list(limit: Int) async throws -> [PendingRevocation] {
        try await pool.read { db in
            try db.fetchAll(
                sql: "SELECT \(Self.columns) FROM pending_revocations ORDER BY attempts, created_at, id LIMIT ?",
                arguments: [limit]
            ) { row in
                PendingRevocation(
                    id: try row[0], clientID: try row[1], encryptedToken: try row[2], attempts: try row[3],
                    lastError: try row[4], createdAt: try row[5])
            }
        }
    }

    /// Counts one more failed attempt and records why; false when there is no such entry.
    @discardableResult
    package func recordFailure(id: UUID, error: String) async throws -> Bool {
        try await pool.execute(
            sql: "UPDATE pending_revocations SET attempts = attempts + 1, last_error = ? WHERE id = ?",
            arguments: [error, id]) == 1
    }

    /// Removes an entry once revoked (or given up); false when there was none.
    @discardableResult
    package func delete(id: UUID) async throws -> Bool {
        try await pool.execute(sql: "DELETE FROM pending_revocations WHERE id = ?", arguments: [id]) == 1
    }

    static func insert(_ revocation: PendingRevocation, into db: Database) throws {
        try db.execute(
            sql: "INSERT INTO pending_revocations (\(columns)) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [
                revocation.id, revocation.clientID, revocation.encryptedToken, revocation.attempts,
                revocation.lastError, revocation.createdAt,
            ])
    }
}
