import Foundation
import Storage

/// Apple refresh tokens per user (encrypted by the caller), for revocation at account deletion.
package struct AppleTokenRepository: Sendable {
    static let columns = "id, user_id, client_id, refresh_token, created_at, revoked_at"

    let pool: DatabasePool

    package init(pool: DatabasePool) {
        self.pool = pool
    }

    /// The tokens of `userID`, oldest first.
    package func list(userID: UUID) async throws -> [AppleToken] {
        try await pool.read { db in
            try db.fetchAll(
                sql: "SELECT \(Self.columns) FROM apple_tokens WHERE user_id = ? ORDER BY created_at, id",
                arguments: [userID]
            ) { row in
                AppleToken(
                    id: try row[0], userID: try row[1], clientID: try row[2], encryptedRefreshToken: try row[3],
                    createdAt: try row[4], revokedAt: try row[5])
            }
        }
    }

    /// Stores `token`.
    ///
    /// - Throws: `SQLiteError` `.foreignKeyConstraint` when its user does not exist.
    package func add(_ token: AppleToken) async throws {
        try await pool.write { db in try Self.insert(token, into: db) }
    }

    /// Records that the token was revoked at Apple at `date`; false when there is no such token.
    @discardableResult
    package func markRevoked(id: UUID, at date: Date) async throws -> Bool {
        try await pool.execute(sql: "UPDATE apple_tokens SET revoked_at = ? WHERE id = ?", arguments: [date, id]) == 1
    }

    /// Deletes the token; false when there was none.
    @discardableResult
    package func delete(id: UUID) async throws -> Bool {
        try await pool.execute(sql: "DELETE FROM apple_tokens WHERE id = ?", arguments: [id]) == 1
    }
}
