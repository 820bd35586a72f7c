import Foundation

/// `siwa apple transfer status`: how far a transfer has come, on either side.
extension AppleTransfer {
    /// Users, those holding a transfer identifier (exported), those migrated, those still to migrate, and the days
    /// left of the 60-day window, counted from this database's first import. Needs no Apple key, changes nothing.
    package static func status(environment: OperatorEnvironment, now: Date = Date()) async throws -> String {
        let (counts, firstImport) = try await environment.withClient { database, _ in
            let repository = TransferRepository(pool: database)
            return (try await repository.counts(), try await repository.firstImport())
        }
        var lines = [
            "users: \(counts.users)",
            "exported (hold a transfer identifier): \(counts.exported)",
            "migrated: \(counts.migrated)",
            "still to migrate: \(counts.toMigrate)",
        ]
        if let first = firstImport {
            let closes = first.addingTimeInterval(window)
            let left = closes.timeIntervalSince(now)
            // Days begun count: 60 on the day of the first import, 1 on its last day, never 0 while it is open.
            let days = max(0, Int((left / 86_400).rounded(.up)))
            let formatter = ISO8601DateFormatter()
            let since = formatter.string(from: first)
            lines.append(left > 0
                ? "days left in the 60-day window: \(days) (first import \(since), closes \(formatter.string(from: closes)))"
                : "days left in the 60-day window: 0: it closed (first import \(since)); see TN3159 for users left")
        } else {
            lines.append("days left in the 60-day window: not started (no import yet)")
        }
        return lines.joined(separator: "\n")
    }
}
