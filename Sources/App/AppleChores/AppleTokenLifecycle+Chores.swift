import Foundation
import Logging

/// Apple's chores on this lifecycle's client, key and database: the same code for the commands and for the
/// server's own schedule.
extension AppleTokenLifecycle {
    /// The chore `kind` on this lifecycle, judging what is due by `clock` (the lifecycle's own by default), or nil
    /// when the lifecycle is off.
    func chore(_ kind: AppleChoreKind, clock: (@Sendable () -> Date)? = nil) -> AppleChore? {
        guard let client, let sealer else { return nil }
        let queue: ChoreQueue = switch kind {
        case .validateTokens: .appleTokens(appleTokens.pool)
        case .retryRevocations: .pendingRevocations(pending.pool)
        }
        return AppleChore(kind: kind, queue: queue, client: client, sealer: sealer, appleTokens: appleTokens,
                          pending: pending, clock: clock ?? self.clock)
    }

    /// Runs chore `kind` once over what is due, with up to `APPLE_MAX_CONNECTIONS` calls in flight; nil when the
    /// lifecycle is off.
    /// - Parameters:
    ///   - counters: where outcomes are counted for `/metrics`.
    ///   - progress: the terminal's live line, when there is one.
    ///   - clock: what judges which tokens are due, when not the lifecycle's clock.
    func run(_ kind: AppleChoreKind, logger: Logger, counters: ChoreCounters? = nil, progress: ChoreProgress? = nil,
             clock: (@Sendable () -> Date)? = nil) async -> ChoreTally? {
        guard let chore = chore(kind, clock: clock), let http = client?.http else { return nil }
        let run = ChoreRun(chore: chore, bound: http.configuration.maxConnectionsPerOrigin, loop: http.group.next(),
                           logger: logger, counters: counters)
        let tally = await run.run(progress: progress.map { progress in { progress.update($0) } })
        progress?.finish()
        return tally
    }
}
