import IOCore

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
