import Foundation
import Storage

/// One refresh token a chore run has claimed: a stored Apple token to check, or a queued revocation to retry.
struct ChoreItem: Sendable, Equatable {
    var id: UUID
    /// The token's user, for a stored token (a queued revocation's user is gone).
    var userID: UUID?
    var clientID: String
    /// The refresh token, encrypted (`RefreshTokenSealer`).
    var encryptedToken: [UInt8]
    /// When the run's claim on the row lapses (`ChoreQueue.lease` after the claim, later once renewed).
    var leaseEnd: Date
}

extension ChoreItem {
    /// Reads `id, client_id, refresh_token` and, when `hasUser`, `user_id`, of a row leased until `leaseEnd`.
    init(row: Row, hasUser: Bool, leaseEnd: Date) throws {
        self.init(id: try row[0], userID: hasUser ? try row[3] as UUID : nil, clientID: try row[1],
                  encryptedToken: try row[2], leaseEnd: leaseEnd)
    }
}
