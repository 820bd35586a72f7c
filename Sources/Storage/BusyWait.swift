import CSQLite
import Glibc
import IOCore

/// How long one connection waits for another connection's lock, on the monotonic clock: SQLite's busy handler
/// (https://sqlite.org/c3ref/busy_handler.html) in place of `sqlite3_busy_timeout`.
///
/// SQLite's own handler adds up the sleeps it asked for, not the time they took, so on a loaded machine, where each
/// sleep overruns, a write waited well past its timeout (one parallel test run stretched a 4 s timeout to 6.25 s).
/// This one stops at the timeout as the clock measures it, sleeping SQLite's steps in between, never past the end.
/// Owned by one `Database`, and called on that connection's thread only, inside a statement that may block.
final class BusyWait {
    /// How long a lock is waited for, in milliseconds; 0 gives up at once.
    var timeoutMilliseconds: Int
    /// When this lock's wait began (`MonotonicClock` nanoseconds), set at its first call.
    private var startedAt: UInt64 = 0

    /// SQLite's own sleeps between tries, in milliseconds (`sqliteDefaultBusyCallback`); the last one repeats.
    static let steps: [Int] = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100]

    init(timeoutMilliseconds: Int) {
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    /// Installs this handler on `handle`, which must not outlive `self` (the owning `Database` keeps both).
    func install(on handle: OpaquePointer) {
        sqlite3_busy_handler(handle, { context, count in
            guard let context else { return 0 }
            return Unmanaged<BusyWait>.fromOpaque(context).takeUnretainedValue().tryAgain(after: Int(count)) ? 1 : 0
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Called by SQLite when the lock is held; `count` is how many times it was called before for this lock. Sleeps
    /// and answers true to try again, or answers false (the statement fails with `SQLITE_BUSY`).
    private func tryAgain(after count: Int) -> Bool {
        let now = MonotonicClock.now()
        if count == 0 { startedAt = now }
        let elapsedMilliseconds = Int((now &- startedAt) / 1_000_000)
        guard let sleep = Self.sleep(after: count, elapsedMilliseconds: elapsedMilliseconds,
                                     timeoutMilliseconds: timeoutMilliseconds) else { return false }
        usleep(useconds_t(sleep * 1_000))
        return true
    }

    /// What to do on the `count`th call, `elapsedMilliseconds` into the wait: sleep that many milliseconds (SQLite's
    /// step, cut to what is left) and try again, or nil to give up.
    static func sleep(after count: Int, elapsedMilliseconds: Int, timeoutMilliseconds: Int) -> Int? {
        let left = timeoutMilliseconds - elapsedMilliseconds
        guard left > 0 else { return nil }
        return min(steps[min(max(count, 0), steps.count - 1)], left)
    }
}
