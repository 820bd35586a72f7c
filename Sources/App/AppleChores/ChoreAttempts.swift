import AppleID
import IOCore

/// Asking Apple until its answer settles a call, the same way for every chore and for a transfer: Apple's
/// throttling or failing (429, or a 5xx that says the service is down for now: `ChoreBackoff.waitedOutStatuses`)
/// pauses the whole run for as long as Apple asks (`Retry-After`, RFC 9110 §10.2.3), or by capped backoff with
/// jitter without it, and the call is made again, however often: never a failed run. A network failure, a timeout,
/// or another 5xx (501, 505: no wait mends them, whatever `Retry-After` they carry) is tried
/// `ChoreBackoff.maxAttempts` times; anything else settles it at once.
enum ChoreAttempts {
    /// Makes `call` until it returns, fails for good, or the task is cancelled.
    /// - Parameters:
    ///   - throttle: the run's shared pause.
    ///   - loop: where the waits park.
    /// - Returns: the call's result, nil when the task was cancelled first, and how many throttled answers were
    ///   waited out and asked again: one the run stopped while waiting out is not counted (found by a black-box
    ///   review: a run stopped during Apple's `Retry-After` said "16 throttled and retried", none of them retried).
    static func settle<T>(throttle: ChoreThrottle, loop: EventLoop, _ call: () async throws -> T) async
        -> (result: Result<T, any Error>?, throttled: Int)
    {
        var throttled = 0
        var waitingOutThrottle = false
        var failures = 0
        while !Task.isCancelled {
            if let deadline = await throttle.deadline() {
                await ChoreSleep.until(deadline, on: loop)
                if Task.isCancelled { break }
            }
            if waitingOutThrottle {
                throttled += 1
                waitingOutThrottle = false
            }
            let sentAt = MonotonicClock.now()
            do {
                let value = try await call()
                await throttle.succeeded()
                return (.success(value), throttled)
            } catch let error as AppleAuthError where error.kind == .throttled
                        || ChoreBackoff.waitedOutStatuses.contains(error.status ?? 0) {
                waitingOutThrottle = true
                if let seconds = error.retryAfterSeconds {
                    await throttle.pause(seconds: ChoreBackoff.retryAfter(seconds))
                } else {
                    await throttle.backOff(sentAt: sentAt)
                }
            } catch let error as AppleAuthError where error.isTransient {
                failures += 1
                guard failures < ChoreBackoff.maxAttempts else { return (.failure(error), throttled) }
                await ChoreSleep.seconds(ChoreBackoff.delay(afterAttempt: failures, random: .random(in: 0..<1)), on: loop)
            } catch {
                return (.failure(error), throttled)
            }
        }
        return (nil, throttled)
    }
}
