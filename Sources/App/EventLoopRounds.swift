import IOCore
import HTTPCore
import Storage

/// The HTTP server's event loops as the database's `RoundExecutor`: the writes that one loop iteration's requests
/// queue (sign-ins, logouts, sessions) commit together at the end of that iteration, on the loop thread, instead of
/// waking the database's writer thread.
///
/// On one core this takes the writer thread's wait for the core out of every sign-in: the tail of the latency
/// distribution shrinks at the same rate (BENCHMARKS.md, "Group commit on the loop threads").
struct EventLoopRounds: RoundExecutor {
    func runAtEndOfCurrentRound(key: ObjectIdentifier, _ task: @escaping @Sendable () -> Void) -> Bool {
        EventLoopIteration.runAtEnd(key: key, task)
    }

    func runWhenIdle(key: ObjectIdentifier, atTheLatestAfter delay: Duration,
                     _ task: @escaping @Sendable () -> Void) -> Bool {
        EventLoopIteration.runWhenIdle(key: key, atTheLatestAfter: delay, task)
    }

    /// A timer on the calling thread's loop; every timer of a loop fires when it stops.
    func runOnCurrentThread(after delay: Duration, _ task: @escaping @Sendable () -> Void) -> Bool {
        guard let loop = EventLoop.current else { return false }
        loop.schedule(at: MonotonicClock.deadline(after: delay), task)
        return true
    }
}
