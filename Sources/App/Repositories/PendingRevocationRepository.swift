import Foundation
import Storage

/// Apple token revocations that failed after their user was deleted, to retry.
package struct PendingRevocationRepository: Sendable {
    static let columns = "id, client_id, refresh_token, attempts, last_error, created_at"

    let pool: any DatabaseClient

    package init(pool: any DatabaseClient) {
        self.pool = pool
    }

    /// Queues `revocation`.
    package func add(_ revocation: PendingRevocation) async throws {
        try await pool.write(Self.insert(revocation))
    }

    /// Up to `limit` queued revocations, fewest attempts then oldest first.
    package func list(limit: Int) async throws -> [PendingRevocation] {
        try await pool.read(SQL("SELECT \(Self.columns) FROM pending_revocations ORDER BY attempts, created_at, id LIMIT ?",
                                [limit])) { row in
            PendingRevocation(
                id: try row[0], clientID: try row[1], encryptedToken: try row[2], attempts: try row[3],
                lastError: try row[4], createdAt: try row[5])
        }
    }

    /// Counts one more failed attempt and records why, the entry due again at `dueAt`; false when there is no such
    /// entry.
    @discardableResult
    package func recordFailure(id: UUID, error: String, dueAt: Date = Date(timeIntervalSince1970: 0)) async throws
        -> Bool
    {
        try await pool.write(SQL("UPDATE pending_revocations SET attempts = attempts + 1, last_error = ?, due_at = ?, "
                                 + "claimed_by = NULL "
                                 + "WHERE id = ?", [error, dueAt, id])).changes == 1
    }

    /// Removes an entry once revoked (or given up); false when there was none.
    @discardableResult
    package func delete(id: UUID) async throws -> Bool {
        try await pool.write(SQL("DELETE FROM pending_revocations WHERE id = ?", [id])).changes == 1
    }

    /// Queues `revocation` only while the user `userID` exists: the deletion that removes them queues what its own
    /// calls to Apple did not revoke, and a deletion of the same user that came second (two devices, the web page
    /// and `siwa users delete`) queues nothing. Found by a review: both queued the token, and it was revoked twice.
    static func insert(_ revocation: PendingRevocation, whileUserExists userID: UUID) -> SQL {
        SQL("INSERT INTO pending_revocations (\(columns)) SELECT ?, ?, ?, ?, ?, ? "
            + "WHERE EXISTS (SELECT 1 FROM users WHERE id = ?)", [
                revocation.id, revocation.clientID, revocation.encryptedToken, revocation.attempts,
                revocation.lastError, revocation.createdAt, userID,
            ])
    }

    static func insert(_ revocation: PendingRevocation) -> SQL {
        SQL("INSERT INTO pending_revocations (\(columns)) VALUES (?, ?, ?, ?, ?, ?)", [
            revocation.id, revocation.clientID, revocation.encryptedToken, revocation.attempts, revocation.lastError,
            revocation.createdAt,
        ])
    }
}
