import Foundation
import Storage

/// The `jti` of every Apple server-to-server notification applied, so each is applied once.
package struct AppleNotificationRepository: Sendable {
    let pool: DatabasePool
    let now: @Sendable () -> Date

    package init(pool: DatabasePool, now: @escaping @Sendable () -> Date = { Date() }) {
        self.pool = pool
        self.now = now
    }

    /// Records `jti`; returns true when it was new (apply the notification), false when already seen.
    package func recordIfNew(jti: String) async throws -> Bool {
        let receivedAt = now()
        return try await pool.execute(
            sql: "INSERT INTO apple_notifications (jti, received_at) VALUES (?, ?) ON CONFLICT (jti) DO NOTHING",
            arguments: [jti, receivedAt]) == 1
    }

    /// Forgets ids received before `date` (their tokens have long expired); returns how many.
    @discardableResult
    package func sweep(receivedBefore date: Date) async throws -> Int {
        try await pool.execute(sql: "DELETE FROM apple_notifications WHERE received_at < ?", arguments: [date])
    }
}
