import Foundation
import Storage

extension AppleTokenRepository {
    /// The statement that stores `token`.
    static func insert(_ token: AppleToken) -> SQL {
        SQL("INSERT INTO apple_tokens (\(columns)) VALUES (?, ?, ?, ?, ?, ?)",
            [token.id, token.userID, token.clientID, token.encryptedRefreshToken, token.createdAt, token.revokedAt])
    }

    /// Tokens not yet known to be revoked, `limit` at a time in id order after `afterID`, for the daily
    /// validation Apple suggests.
    package func listActive(after afterID: UUID?, limit: Int) async throws -> [AppleToken] {
        let select = "SELECT \(Self.columns) FROM apple_tokens WHERE revoked_at IS NULL"
        guard let afterID else {
            return try await pool.read(SQL(select + " ORDER BY id LIMIT ?", [limit]), AppleToken.init(row:))
        }
        return try await pool.read(SQL(select + " AND id > ? ORDER BY id LIMIT ?", [afterID, limit]), AppleToken.init(row:))
    }
}

extension AppleToken {
    /// Reads the columns of `AppleTokenRepository.columns`, in that order.
    init(row: Row) throws {
        self.init(id: try row[0], userID: try row[1], clientID: try row[2], encryptedRefreshToken: try row[3],
                  createdAt: try row[4], revokedAt: try row[5])
    }
}
