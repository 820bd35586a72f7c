import Foundation
import Storage

extension AppleTokenRepository {
    /// Inserts `token` inside a transaction the caller runs (the sign-in transaction).
    static func insert(_ token: AppleToken, into db: Database) throws {
        try db.execute(
            sql: "INSERT INTO apple_tokens (\(columns)) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [
                token.id, token.userID, token.clientID, token.encryptedRefreshToken, token.createdAt, token.revokedAt,
            ])
    }

    /// Tokens not yet known to be revoked, `limit` at a time in id order after `afterID`, for the daily
    /// validation Apple suggests.
    package func listActive(after afterID: UUID?, limit: Int) async throws -> [AppleToken] {
        try await pool.read { db in
            try db.fetchAll(
                sql: """
                    SELECT \(Self.columns) FROM apple_tokens
                    WHERE revoked_at IS NULL AND id > ? ORDER BY id LIMIT ?
                    """,
                arguments: [afterID?.uuidString.lowercased() ?? "", limit]
            ) { row in
                AppleToken(
                    id: try row[0], userID: try row[1], clientID: try row[2], encryptedRefreshToken: try row[3],
                    createdAt: try row[4], revokedAt: try row[5])
            }
        }
    }
}
