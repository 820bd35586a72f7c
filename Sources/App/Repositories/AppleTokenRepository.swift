import Foundation
import Storage

/// Apple refresh tokens per user (encrypted by the caller), for revocation at account deletion.
package struct AppleTokenRepository: Sendable {
    static let columns = "id, user_id, client_id, refresh_token, created_at, revoked_at"

    let pool: any DatabaseClient

    package init(pool: any DatabaseClient) {
        self.pool = pool
    }

    /// The tokens of `userID`, oldest first.
    package func list(userID: UUID) async throws -> [AppleToken] {
        try await pool.read(SQL("SELECT \(Self.columns) FROM apple_tokens WHERE user_id = ? ORDER BY created_at, id",
                                [userID]), AppleToken.init(row:))
    }

    /// Stores `token`.
    ///
    /// - Throws: a `DatabaseFailure` of kind `.foreignKeyConstraint` when its user does not exist.
    package func add(_ token: AppleToken) async throws {
        try await pool.write(Self.insert(token))
    }

    /// Records that the token was revoked at Apple at `date`; false when there is no such token.
    @discardableResult
    package func markRevoked(id: UUID, at date: Date) async throws -> Bool {
        try await pool.write(SQL("UPDATE apple_tokens SET revoked_at = ? WHERE id = ?", [date, id])).changes == 1
    }

    /// Deletes the token; false when there was none.
    @discardableResult
    package func delete(id: UUID) async throws -> Bool {
        try await pool.write(SQL("DELETE FROM apple_tokens WHERE id = ?", [id])).changes == 1
    }
}
