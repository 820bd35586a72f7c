import AppleID
import Foundation
import IOCore
import Logging
import Storage

/// One pass of a transfer over the users still to do: pages them by id (`TransferRepository.Item`), and keeps up to
/// `bound` users in hand at once (the pooled client's `APPLE_MAX_CONNECTIONS`), as Apple's chores do (`ChoreRun`).
/// Each user's calls are made as `ChoreAttempts` says, so Apple's throttling is waited out and never fails a run.
///
/// Apple's `invalid_client` stops the run: every later call would get it too. Cancelling the task (SIGTERM) stops
/// it as well; what was stored stays, and the next run asks only for the users left.
struct TransferRun: Sendable {
    /// Users in hand at most.
    let bound: Int
    let loop: EventLoop
    /// The next users after an id, at most a count.
    let page: @Sendable (UUID, Int) async throws -> [TransferRepository.Item]
    /// Asks Apple about one user and stores the answer; false when the user was deleted meanwhile.
    let settle: @Sendable (TransferRepository.Item) async throws -> Bool

    /// Users read per page: twice the bound, at least `ChoreRun.minimumBatch`.
    var pageSize: Int { max(ChoreRun.minimumBatch, 2 * bound) }

    /// What became of one user.
    enum Outcome: Sendable, Equatable {
        case done
        /// Deleted while the run asked Apple about them: nothing to move.
        case gone
        case failed(String)
        case interrupted
        /// Apple refused the team's credentials: the run stops.
        case stop(String)
    }

    /// Runs to the end of the users still to do, filling in `tally` (whose `due` the caller set).
    func run(_ tally: inout TransferTally) async {
        let startedAt = MonotonicClock.now()
        let throttle = ChoreThrottle()
        var buffer: [TransferRepository.Item] = []
        var last = TransferRepository.start
        var exhausted = false
        var result = tally
        await withTaskGroup(of: (Outcome, Int).self) { group in
            var inFlight = 0
            var stopping = false
            while true {
                while inFlight < bound, !stopping, !Task.isCancelled {
                    if buffer.isEmpty, !exhausted {
                        do {
                            buffer = try await page(last, pageSize).reversed()
                        } catch {
                            result.pageFailures += 1
                            buffer = []
                        }
                        exhausted = buffer.isEmpty
                        if let first = buffer.first { last = first.userID }
                    }
                    guard let item = buffer.popLast() else { break }
                    inFlight += 1
                    group.addTask { await process(item, throttle: throttle) }
                }
                guard let (outcome, throttled) = await group.next() else { break }
                inFlight -= 1
                result.throttledRetries += throttled
                switch outcome {
                case .done: result.done += 1
                case .gone: result.gone += 1
                case .failed(let reason): result.failed.add(reason)
                case .interrupted: result.interrupted += 1
                case .stop(let reason):
                    result.interrupted += 1
                    if result.stoppedBy == nil { result.stoppedBy = reason }
                    stopping = true
                    group.cancelAll()
                }
            }
        }
        result.interrupted += buffer.count
        // Stopped (SIGTERM) before the last page was read: the users on pages never read were not reached either,
        // so the run is not complete, its exit status says so and export writes no file. Found by a review: a
        // stop between two pages reported "0 interrupted", exited 0 and wrote a partial file. So were they when
        // Apple's answer stopped the run (`invalid_client`); a review saw 308 of 404 users counted nowhere.
        if Task.isCancelled || result.stoppedBy != nil, !exhausted { result.interrupted += result.notReached }
        result.seconds = Double(MonotonicClock.now() - startedAt) / 1e9
        tally = result
    }

    private func process(_ item: TransferRepository.Item, throttle: ChoreThrottle) async -> (Outcome, Int) {
        let (result, throttled) = await ChoreAttempts.settle(throttle: throttle, loop: loop) { try await settle(item) }
        switch result {
        case .success(let stored)?: return (stored ? .done : .gone, throttled)
        case nil: return (.interrupted, throttled)
        case .failure(let error)?:
            if let error = error as? AppleAuthError, error.kind == .apple("invalid_client") {
                return (.stop(error.likelyCause), throttled)
            }
            return (.failed(Self.reason(error)), throttled)
        }
    }

    /// A short reason for the summary, naming no identifier or token.
    static func reason(_ error: any Error) -> String {
        if let failure = error as? any DatabaseFailure {
            return failure.failureKind == .uniqueConstraint ? "sub taken by another user" : "database"
        }
        return ChoreRun.reason(error)
    }
}
