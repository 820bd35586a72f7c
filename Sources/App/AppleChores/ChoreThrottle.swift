import IOCore

/// The pause a run keeps while Apple throttles it: once one call is told to wait (429, or a 5xx with
/// `Retry-After`), every call of the run waits until then, rather than each finding out on its own.
actor ChoreThrottle {
    /// The monotonic time (ns) before which no call is made.
    private var resumeAt: UInt64 = 0
    /// Throttled answers in a row without `Retry-After`, for the backoff.
    private var streak = 0

    /// Pauses the run for `seconds` from now (it never shortens a pause already set).
    func pause(seconds: Double) {
        let deadline = MonotonicClock.now() + UInt64(max(seconds, 0) * 1e9)
        resumeAt = max(resumeAt, deadline)
    }

    /// Pauses the run by the backoff for one more throttled answer without `Retry-After`.
    func backOff() {
        streak += 1
        pause(seconds: ChoreBackoff.delay(afterAttempt: streak, random: Double.random(in: 0..<1)))
    }

    /// A call went through: the backoff starts again from its base.
    func succeeded() { streak = 0 }

    /// When the run may call Apple again, if that is in the future.
    func deadline() -> UInt64? { resumeAt > MonotonicClock.now() ? resumeAt : nil }
}
