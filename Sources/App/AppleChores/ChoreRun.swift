import AppleID
import Foundation
import IOCore
import Logging
import Synchronization

/// One run of a chore: claims due tokens in batches (`ChoreQueue`) and keeps up to `bound` calls to Apple in
/// flight (the pooled client's `APPLE_MAX_CONNECTIONS`), so memory holds a batch or two whatever the count.
///
/// Each call is made as `ChoreAttempts` says: Apple's 429s and 5xx are waited out and never fail a run; a network
/// failure or a timeout is tried `ChoreBackoff.maxAttempts` times, then the token is left due. Cancelling the task
/// (SIGTERM) stops claiming and calling; claimed tokens not done are handed back.
struct ChoreRun: Sendable {
    let chore: AppleChore
    /// Calls in flight at most.
    let bound: Int
    /// Where the run's timers wait.
    let loop: EventLoop
    let logger: Logger
    /// Counts outcomes for `/metrics` (the server's schedule), when set.
    let counters: ChoreCounters?

    /// Tokens claimed per batch, at least `minimumBatch` and twice the bound.
    var batchSize: Int { max(Self.minimumBatch, 2 * bound) }
    /// The smallest batch claimed.
    static let minimumBatch = 32

    /// Runs to the end of what was due when it began, or until the task is cancelled.
    /// - Parameter progress: told of each token done (the terminal's live line).
    func run(progress: ((ChoreTally) -> Void)? = nil) async -> ChoreTally {
        do {
            let released = try await chore.queue.releaseClaimsOfGoneRuns(now: chore.clock())
            if released > 0 {
                logger.notice("\(chore.kind.rawValue): took back \(released) token(s) claimed by a run that is gone")
            }
            let broughtBack = try await chore.queue.bringBackRowsDueTooLate(now: chore.clock())
            if broughtBack > 0 {
                logger.warning("""
                    \(chore.kind.rawValue): \(broughtBack) token(s) were due more than \
                    \(Int(ChoreQueue.furthestDue / 86_400)) days ahead, stamped while the clock was ahead: due now
                    """)
            }
        } catch {
            logger.warning("\(chore.kind.rawValue): looking for tokens claimed by gone runs or due too far ahead failed",
                           metadata: ["cause": "\(error)"])
        }
        let started = chore.clock()
        let startedAt = MonotonicClock.now()
        var tally = ChoreTally(chore: chore.kind)
        do {
            tally.due = try await chore.queue.countDue(before: started)
        } catch {
            tally.add(.failed(reason: "database"))
            return tally
        }
        progress?(tally)
        let throttle = ChoreThrottle()
        let refusals = ChoreCredentialRefusals()
        var buffer: [ChoreItem] = []
        var exhausted = false
        await withTaskGroup(of: (ChoreOutcome?, Int).self) { group in
            var inFlight = 0
            while true {
                while inFlight < bound, !Task.isCancelled {
                    if buffer.isEmpty, !exhausted {
                        do {
                            buffer = try await chore.queue.claim(
                                limit: batchSize, dueBefore: started,
                                leaseEnd: chore.clock().addingTimeInterval(ChoreQueue.lease)
                            ).reversed()
                        } catch {
                            logger.warning("\(chore.kind.rawValue): claiming tokens failed", metadata: ["cause": "\(error)"])
                            tally.claimFailures += 1
                        }
                        exhausted = buffer.isEmpty
                    }
                    guard let item = buffer.popLast() else { break }
                    inFlight += 1
                    group.addTask {
                        await process(item, throttle: throttle, refusals: refusals, runStartedAt: started)
                    }
                }
                guard let (settled, throttled) = await group.next() else { break }
                inFlight -= 1
                if let outcome = settled {
                    tally.add(outcome, throttledRetries: throttled)
                    counters?.record(chore.kind, outcome, throttledRetries: throttled)
                } else {
                    tally.throttledRetries += throttled
                }
                tally.seconds = Double(MonotonicClock.now() - startedAt) / 1e9
                progress?(tally)
            }
        }
        for item in buffer {
            try? await chore.record(.interrupted, for: item, runStartedAt: started)
            tally.add(.interrupted)
            counters?.record(chore.kind, .interrupted, throttledRetries: 0)
        }
        // Stopped between two batches: what no run took on is still due, and the summary and exit status say so.
        // (Handed-back tokens are due from now, after `started`, so they are not counted twice.)
        if Task.isCancelled, let left = try? await chore.queue.countDue(before: started), left > 0 {
            tally.interrupted += left
        }
        // What other runs still hold: a run killed leaves its claimed rows leased until the lease lapses, and the
        // summary says so rather than "all done".
        if !Task.isCancelled, let held = try? await chore.queue.countLeased(at: chore.clock()) {
            tally.heldByOtherRuns = held
        }
        tally.seconds = Double(MonotonicClock.now() - startedAt) / 1e9
        return tally
    }

    /// Settles one token: asks Apple until the answer settles it (or the task is cancelled), then records it.
    /// - Returns: the outcome and how many throttled answers were waited out.
    /// A token whose lease lapsed meanwhile (`ChoreQueue.hold`) is left to whichever run holds it now: not asked,
    /// not recorded, and counted as interrupted. A token of a client id whose client secret Apple refused earlier in
    /// the run is not asked: it is left due, failed for `ChoreCredentialRefusals.notAsked(after:)`.
    private func process(_ claimed: ChoreItem, throttle: ChoreThrottle, refusals: ChoreCredentialRefusals,
                         runStartedAt: Date) async -> (ChoreOutcome?, Int)
    {
        var item = claimed
        if let refusal = refusals.refusal(of: item.clientID) {
            return await settled(.failed(reason: ChoreCredentialRefusals.notAsked(after: refusal)), item: item,
                                 throttled: 0, runStartedAt: runStartedAt)
        }
        let (result, throttled) = await ChoreAttempts.settle(throttle: throttle, loop: loop) { () -> ChoreOutcome? in
            guard try await chore.queue.hold(&item, now: chore.clock()) else { return nil }
            return try await chore.ask(item)
        }
        let outcome: ChoreOutcome
        switch result {
        case .success(let settled?)?: outcome = settled
        case .success(nil)?:
            // A row gone meanwhile (replaced by a sign-in, deleted with its user) is no one's to finish: counted
            // with what other runs and sign-ins took, not as an interruption. Found by a review: after a long
            // throttle it was "interrupted", and the run exited 1.
            if (try? await chore.queue.isGone(id: item.id)) == true { return (nil, throttled) }
            logger.warning("\(chore.kind.rawValue): a claimed token's lease lapsed; it is left to the run that holds it")
            return (.interrupted, throttled)
        case .failure(let error)?: outcome = .failed(reason: Self.reason(error))
        case nil: outcome = .interrupted
        }
        if case .failed(let reason) = outcome, ChoreTally.credentialFailures.contains(reason),
           refusals.note(reason, for: item.clientID) {
            logger.error("""
                \(chore.kind.rawValue): Apple refused the client secret for \(item.clientID) (\(reason)): the rest of \
                its tokens are not asked this run; check APPLE_TEAM_ID, APPLE_KEY_ID and the .p8 (siwa doctor)
                """)
        }
        return await settled(outcome, item: item, throttled: throttled, runStartedAt: runStartedAt)
    }

    /// Records `outcome` for `item`; a failure to record is the outcome then.
    private func settled(_ outcome: ChoreOutcome, item: ChoreItem, throttled: Int, runStartedAt: Date) async
        -> (ChoreOutcome?, Int)
    {
        do {
            try await chore.record(outcome, for: item, runStartedAt: runStartedAt)
        } catch {
            logger.warning("\(chore.kind.rawValue): recording an outcome failed", metadata: ["cause": "\(error)"])
            return (.failed(reason: "database"), throttled)
        }
        return (outcome, throttled)
    }

    /// A short reason for the summary, naming no token: `unreachable`, `apple: HTTP 500`, `malformed response`,
    /// `apple: invalid_client`.
    static func reason(_ error: any Error) -> String {
        guard let error = error as? AppleAuthError else { return "error" }
        switch error.kind {
        case .unreachable: return error.status.map { "apple: HTTP \($0)" } ?? "unreachable"
        case .throttled: return "throttled"
        case .malformedResponse: return "malformed response"
        case .tokenMismatch: return "token mismatch"
        case .interrupted: return "shutdown"
        case .apple(let code): return "apple: " + code.prefix(40).filter { $0.isLetter || $0 == "_" }
        }
    }

    /// Whether a `reason(_:)` is an error code Apple answered (`apple: invalid_request`), which a run again does not
    /// wait out, rather than a status, a fault on the way or this server's own (`apple: HTTP 501`, `unreachable`).
    static func isApplesRefusal(_ reason: String) -> Bool {
        reason.hasPrefix("apple: ") && !reason.hasPrefix("apple: HTTP ")
    }
}

/// The client ids whose client secret Apple refused during one run (`ChoreTally.credentialFailures`): every later
/// call for them would be refused too, so their other tokens are not asked. Found by a review: a wrong
/// `APPLE_KEY_ID` cost one refused call per due token, 19,995 of them.
final class ChoreCredentialRefusals: Sendable {
    private let refused = Mutex<[String: String]>([:])

    /// The reason Apple gave for `clientID`, once it refused it.
    func refusal(of clientID: String) -> String? {
        refused.withLock { $0[clientID] }
    }

    /// Notes Apple's refusal of `clientID`; true the first time.
    func note(_ reason: String, for clientID: String) -> Bool {
        refused.withLock { refused in
            guard refused[clientID] == nil else { return false }
            refused[clientID] = reason
            return true
        }
    }

    /// The failure reason of a token left unasked after `refusal`.
    static func notAsked(after refusal: String) -> String { "not asked after " + refusal }
}
