import Foundation
import Logging

/// Deletes what has expired, in the background while the server runs: bearer tokens, sessions, the nonces of web
/// sign-ins whose tokens have expired, and notification ids older than any notification Apple could still deliver.
struct Housekeeping: Sendable {
    let services: Services

    /// How often the sweep runs.
    static let interval: Duration = .seconds(15 * 60)
    /// Notification ids are kept this long after receipt; older payloads fail the `iat` check anyway.
    static let notificationRetention: TimeInterval = 7 * 24 * 60 * 60
    /// Expired rows deleted per transaction: a backlog goes in many short writes, none holding SQLite's writer or
    /// a PostgreSQL statement for long.
    static let expiredRowsPerTransaction = 5_000

    /// One sweep; returns how many rows each table lost.
    @discardableResult
    func sweep() async throws -> [String: Int] {
        [
            "tokens": try await services.tokens.sweepExpired(),
            "sessions": try await services.sessions.sweepExpired(),
            "used_nonces": try await services.usedNonces.sweepExpired(),
            "apple_notifications": try await services.notifications.sweep(
                receivedBefore: services.clock().addingTimeInterval(-Self.notificationRetention)),
        ]
    }

    /// Sweeps every `interval` until the task is cancelled.
    func run() async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: Self.interval)
                let removed = try await sweep()
                services.logger.debug("housekeeping", metadata: removed.mapValues { "\($0)" })
            } catch is CancellationError {
                return
            } catch {
                services.logger.warning("housekeeping failed: \(error)")
            }
        }
    }
}
