import Foundation
import Logging

/// Deletes what has expired, in the background while the server runs: bearer tokens, sessions, the nonces of web
/// sign-ins whose tokens have expired, notification ids older than any notification Apple could still deliver, and
/// notifications kept for users not yet imported past the transfer window; and applies those kept notifications
/// whose user a stopped import moved (`AppleNotificationRepository+Held`).
struct Housekeeping: Sendable {
    let services: Services

    /// How often the sweep runs.
    static let interval: Duration = .seconds(15 * 60)
    /// When the first sweep runs after start: soon, so that an instance that never lives `interval` (a crash loop,
    /// frequent deploys, short-lived instances) still sweeps; not at once, so that the wall clock has been looked at
    /// against the monotonic one first (`WallClockCheck`). Found by a review: the first sweep came after 15 minutes.
    static let firstSweepDelay: Duration = .seconds(60)
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
            "held_apple_notifications": try await services.notifications.sweepHeld(
                receivedBefore: services.clock().addingTimeInterval(-AppleNotificationRepository.heldLifetime)),
            "held_apple_notifications_applied": try await services.notifications.applyHeld(),
        ]
    }

    /// Sweeps `firstDelay` after start, then every `interval`, until the task is cancelled. A sweep is skipped when
    /// the wall clock moved against the monotonic clock since the last one (`WallClockCheck`): what expires is judged
    /// by the wall clock, and one that runs ahead for a while would delete bearer tokens, sessions and used nonces
    /// that have not expired, so that a nonce could sign in again once the clock is back (found by an audit with a
    /// clock a month ahead for a minute).
    func run(firstDelay: Duration = Self.firstSweepDelay, interval: Duration = Self.interval) async {
        var clockCheck = WallClockCheck()
        _ = clockCheck.jump(wall: services.clock(), monotonic: .now)
        var delay = firstDelay
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: delay)
                delay = interval
                if let jump = clockCheck.jump(wall: services.clock(), monotonic: .now) {
                    services.logger.warning("""
                        housekeeping skipped: the wall clock moved \(Int(jump.rounded())) s against the monotonic \
                        clock since the last sweep, and expired rows are judged by the wall clock
                        """)
                    continue
                }
                let removed = try await sweep()
                services.logger.debug("housekeeping", metadata: removed.mapValues { "\($0)" })
                if let applied = removed["held_apple_notifications_applied"], applied > 0 {
                    services.logger.notice("Apple notifications kept for users not yet imported applied",
                                           metadata: ["count": "\(applied)"])
                }
            } catch is CancellationError {
                return
            } catch {
                services.logger.warning("housekeeping failed: \(error)")
            }
        }
    }
}

/// Whether the wall clock moved against the monotonic clock between two looks by more than `tolerance`: a clock
/// set forward or back (by hand, or by NTP correcting a clock that was off), as opposed to time passing. Both
/// clocks count a suspended machine's sleep (`ContinuousClock` is `CLOCK_BOOTTIME` on Linux).
struct WallClockCheck {
    /// Steps up to this are ignored: NTP slews small errors and steps only large ones.
    static let tolerance: TimeInterval = 60

    private var last: (wall: Date, monotonic: ContinuousClock.Instant)?

    /// Records this look; returns how far the wall clock moved against the monotonic one since the previous look (in
    /// seconds, positive when it went forward), when that is more than `tolerance`.
    mutating func jump(wall: Date, monotonic: ContinuousClock.Instant) -> TimeInterval? {
        defer { last = (wall, monotonic) }
        guard let last else { return nil }
        let (seconds, attoseconds) = (monotonic - last.monotonic).components
        let jump = wall.timeIntervalSince(last.wall) - (Double(seconds) + Double(attoseconds) / 1e18)
        return abs(jump) > Self.tolerance ? jump : nil
    }
}
