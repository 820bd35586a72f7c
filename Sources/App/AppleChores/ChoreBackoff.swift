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
    /// How many times a call that failed without `Retry-After` (a network failure, a timeout, a bare 5xx) is made
    /// before its token is left due for the next run. Throttling has no such limit: it never fails a run.
    static let maxAttempts = 3

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
