import Foundation
import IOCore
import Logging

/// `siwa serve`'s own schedule of Apple's chores: every `APPLE_CHORES_INTERVAL`, validate-tokens then
/// retry-revocations, with the same code as the commands, on one instance at a time (`ChoreLease`).
///
/// Every instance looks every `pollInterval` whether a run is due; the one that takes the lease runs both chores,
/// renewing the lease as it goes, then sets the next run an interval after this one began. Cancelling the task
/// (SIGTERM) stops a chore cleanly and gives the lease back with the run still due, for another instance.
struct ChoreSchedule: Sendable {
    let lifecycle: AppleTokenLifecycle
    let lease: ChoreLease
    let interval: TimeInterval
    let counters: ChoreCounters
    let loop: EventLoop
    let logger: Logger
    let clock: @Sendable () -> Date

    /// The longest time between two looks at whether a run is due, in seconds: a dead holder's lease
    /// (`ChoreLease.duration`) is taken over at most this long after it lapses, within 2 minutes in all. Found by an
    /// audit at 180 s, with a lease of 120 s and looks every 60 s.
    static let maxPollInterval: TimeInterval = 20

    var pollInterval: TimeInterval { min(interval, Self.maxPollInterval) }

    /// Looks, runs when due, and sleeps, until the task is cancelled.
    func run() async {
        while !Task.isCancelled {
            do {
                if try await lease.acquire(now: clock(), interval: interval) { await runHoldingLease() }
            } catch {
                logger.warning("Apple's chores: the schedule's lease could not be read", metadata: ["cause": "\(error)"])
            }
            await ChoreSleep.seconds(pollInterval, on: loop)
        }
    }

    /// Runs both chores while renewing the lease; a lost lease stops them.
    private func runHoldingLease() async {
        let started = clock()
        let finished = await withTaskGroup(of: Bool.self) { group in
            group.addTask { await runChores() }
            group.addTask { await keepRenewing() }
            let first = await group.next() ?? false
            group.cancelAll()
            return first && !Task.isCancelled
        }
        do {
            try await lease.release(now: clock(), nextRun: finished ? started.addingTimeInterval(interval) : nil)
        } catch {
            logger.warning("Apple's chores: the lease could not be released; it lapses by itself",
                           metadata: ["cause": "\(error)"])
        }
    }

    /// Both chores, one after the other; true when both ran to their end.
    private func runChores() async -> Bool {
        for kind in AppleChoreKind.allCases {
            counters.runs.add(kind.slot)
            guard let tally = await lifecycle.run(kind, logger: logger, counters: counters) else { return true }
            logger.log(level: tally.logLevel, "\(tally.summary)")
            if Task.isCancelled { return false }
        }
        return true
    }

    /// Renews the lease every `ChoreLease.renewal` until cancelled; returns false once it is lost.
    private func keepRenewing() async -> Bool {
        while !Task.isCancelled {
            await ChoreSleep.seconds(ChoreLease.renewal, on: loop)
            if Task.isCancelled { break }
            if (try? await lease.renew(now: clock())) == false {
                logger.warning("Apple's chores: the lease was lost; stopping")
                return false
            }
        }
        return false
    }
}
