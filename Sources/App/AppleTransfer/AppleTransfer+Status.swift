import Foundation

/// `siwa apple transfer status`: how far a transfer has come, on either side.
extension AppleTransfer {
    /// Users, those holding a transfer identifier (exported), those migrated, those still to migrate, and the days
    /// left of the 60-day window at most: counted from the first user's move here (an import, or a sign-in with
    /// `transfer_sub`), since the transfer itself, from which Apple counts (TN3159), may have come earlier. Needs no
    /// Apple key, changes nothing.
    package static func status(environment: OperatorEnvironment, now: Date = Date()) async throws -> String {
        let (counts, firstMove) = try await environment.withClient { database, _ in
            let repository = TransferRepository(pool: database)
            return (try await repository.counts(), try await repository.firstMove())
        }
        var lines = [
            "users: \(counts.users)",
            "exported (hold a transfer identifier): \(counts.exported)",
            "migrated: \(counts.migrated)",
            "still to migrate: \(counts.toMigrate)",
        ]
        if let first = firstMove {
            let closes = first.addingTimeInterval(window)
            let left = closes.timeIntervalSince(now)
            // Days begun count: 60 on the day of the first move, 1 on its last day, never 0 while it is open.
            let days = max(0, Int((left / 86_400).rounded(.up)))
            let formatter = ISO8601DateFormatter()
            let since = formatter.string(from: first)
            lines.append(left > 0
                ? "days left in the 60-day window: \(days) at most (the first user moved here \(since); the transfer, "
                    + "from which Apple counts, may be earlier; closes by \(formatter.string(from: closes)))"
                : "days left in the 60-day window: 0: it closed (the first user moved here \(since)); see TN3159 for "
                    + "users left")
        } else {
            lines.append("days left in the 60-day window: not started (no user moved here yet)")
        }
        return lines.joined(separator: "\n")
    }
}
