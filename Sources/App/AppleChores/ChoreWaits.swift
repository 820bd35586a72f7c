import IOCore

/// The pause a run keeps while Apple throttles it or fails: once one call is told to wait (429 or a 5xx), every
/// call of the run waits until then, rather than each finding out on its own.
actor ChoreThrottle {
    /// The monotonic time (ns) before which no call is made.
    private var resumeAt: UInt64 = 0
    /// Backoff steps taken in a row, for throttled answers without `Retry-After`.
    private var streak = 0
    /// When the last backoff step was taken (monotonic ns): a throttled answer to a call sent before it belongs to
    /// the same moment of throttling, which that step answers already.
    private var lastStepAt: UInt64 = 0

    /// Pauses the run for `seconds` from now (it never shortens a pause already set).
    func pause(seconds: Double) {
        let deadline = MonotonicClock.now() + UInt64(max(seconds, 0) * 1e9)
        resumeAt = max(resumeAt, deadline)
    }

    /// Pauses the run by the backoff for a throttled answer without `Retry-After` to a call sent at `sentAt`: one
    /// step more when the call was sent after the last step, none for the other calls that were in flight with the
    /// one that took it. Found by an audit: 16 calls throttled at once took 16 steps, straight to the 60 s cap.
    func backOff(sentAt: UInt64) {
        guard sentAt >= lastStepAt else { return }
        streak += 1
        lastStepAt = MonotonicClock.now()
        pause(seconds: ChoreBackoff.delay(afterAttempt: streak, random: Double.random(in: 0..<1)))
    }

    /// How many backoff steps the run has taken in a row.
    var steps: Int { streak }

    /// A call went through: the backoff starts again from its base.
    func succeeded() { streak = 0 }

    /// When the run may call Apple again, if that is in the future.
    func deadline() -> UInt64? { resumeAt > MonotonicClock.now() ? resumeAt : nil }
}

/// Waiting inside a chore: a timer on the event loop (no thread held), in slices so that a stop (SIGTERM
/// cancelling the run's task) is noticed within one slice however long Apple asked to wait.
enum ChoreSleep {
    /// The longest slice, in nanoseconds.
    static let slice: UInt64 = 250_000_000

    /// Parks until `deadline` (monotonic ns) or until the task is cancelled.
    static func until(_ deadline: UInt64, on loop: EventLoop) async {
        while !Task.isCancelled {
            let now = MonotonicClock.now()
            guard now < deadline else { return }
            await loop.sleep(until: min(deadline, now + slice))
        }
    }

    /// Parks for `seconds` or until the task is cancelled.
    static func seconds(_ seconds: Double, on loop: EventLoop) async {
        await until(MonotonicClock.now() + UInt64(max(seconds, 0) * 1e9), on: loop)
    }
}

/// How long a chore waits before it asks Apple again: Apple's `Retry-After` when it sent one (RFC 9110 §10.2.3),
/// capped; otherwise exponential backoff, capped, with "equal jitter" (half the delay fixed, half random) so that the
/// runs of several instances do not retry in step.
enum ChoreBackoff {
    /// The first backoff delay, in seconds.
    static let base: Double = 1
    /// No backoff delay is longer, in seconds.
    static let cap: Double = 60
    /// No `Retry-After` is waited longer, in seconds: an hour, like `AppleAuthClient.maxRetryAfterSeconds`.
    static let maxRetryAfter: Double = 3600
    /// How many times a call that got no answer from Apple (a network failure, a timeout), or a 5xx no wait mends,
    /// is made before its token is left due for the next run. Apple's 429s and `waitedOutStatuses` have no such
    /// limit: they never fail a run.
    static let maxAttempts = 3
    /// The 5xx statuses that say a service is down for now (RFC 9110 §15.6: 500, 502, 503, 504), waited out like a
    /// 429; 501, 505 and the rest would answer the same however long the run waited.
    static let waitedOutStatuses: Set<Int> = [500, 502, 503, 504]

    /// The delay before attempt `attempt + 1`, `attempt` ≥ 1 counting the attempts that failed; `random` in 0..<1.
    static func delay(afterAttempt attempt: Int, random: Double) -> Double {
        let exponent = min(max(attempt - 1, 0), 32)
        let full = min(cap, base * Double(1 << exponent))
        return full / 2 + full / 2 * min(max(random, 0), 1)
    }

    /// The wait Apple asked for, within 0...`maxRetryAfter`.
    static func retryAfter(_ seconds: Int) -> Double {
        min(max(Double(seconds), 0), maxRetryAfter)
    }
}
