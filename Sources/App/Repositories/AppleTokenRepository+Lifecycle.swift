import Foundation
import Storage

extension AppleTokenRepository {
    /// The statement that stores `token`.
    static func insert(_ token: AppleToken) -> SQL {
        SQL("INSERT INTO apple_tokens (\(columns)) VALUES (?, ?, ?, ?, ?, ?)",
            [token.id, token.userID, token.clientID, token.encryptedRefreshToken, token.createdAt, token.revokedAt])
    }
}

extension AppleToken {
    /// Reads the columns of `AppleTokenRepository.columns`, in that order.
    init(row: Row) throws {
        self.init(id: try row[0], userID: try row[1], clientID: try row[2], encryptedRefreshToken: try row[3],
                  createdAt: try row[4], revokedAt: try row[5])
    }
}
