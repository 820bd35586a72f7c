import Foundation
import Testing
@testable import Storage

/// The busy handler waits for another connection's lock on the monotonic clock. SQLite's own adds up the sleeps it
/// asked for, so a loaded machine, where each sleep overruns, stretched a 4 s `DATABASE_BUSY_TIMEOUT_MS` to 6.25 s.
@Suite struct BusyWaitTests {
    @Test func itSleepsSQLitesStepsWhileTimeIsLeft() {
        #expect(BusyWait.sleep(after: 0, elapsedMilliseconds: 0, timeoutMilliseconds: 5_000) == 1)
        #expect(BusyWait.sleep(after: 3, elapsedMilliseconds: 8, timeoutMilliseconds: 5_000) == 10)
        #expect(BusyWait.sleep(after: 11, elapsedMilliseconds: 400, timeoutMilliseconds: 5_000) == 100)
        #expect(BusyWait.sleep(after: 500, elapsedMilliseconds: 4_000, timeoutMilliseconds: 5_000) == 100)
    }

    @Test func theLastSleepEndsAtTheTimeout() {
        #expect(BusyWait.sleep(after: 40, elapsedMilliseconds: 4_970, timeoutMilliseconds: 5_000) == 30)
        #expect(BusyWait.sleep(after: 40, elapsedMilliseconds: 4_999, timeoutMilliseconds: 5_000) == 1)
    }

    /// Past the timeout by the clock it gives up, however few sleeps it asked for: two calls in, SQLite's own handler
    /// would have counted 3 ms and waited on.
    @Test func itGivesUpAtTheTimeoutByTheClockNotByItsSleeps() {
        #expect(BusyWait.sleep(after: 2, elapsedMilliseconds: 5_000, timeoutMilliseconds: 5_000) == nil)
        #expect(BusyWait.sleep(after: 1, elapsedMilliseconds: 9_000, timeoutMilliseconds: 5_000) == nil)
    }

    @Test func aTimeoutOfZeroDoesNotWait() {
        #expect(BusyWait.sleep(after: 0, elapsedMilliseconds: 0, timeoutMilliseconds: 0) == nil)
    }

    /// On a real lock: a write with a 300 ms timeout fails with `.busy` once that time is up by the clock, and one
    /// whose lock goes within its time goes through.
    @Test func aHeldLockIsWaitedForUpToTheTimeout() throws {
        let directory = try TemporaryDirectory()
        let holder = try Database(path: directory.path())
        try holder.execute(sql: "CREATE TABLE t (a INTEGER)")
        let waiter = try Database(path: directory.path(), configuration: .init(busyTimeoutMilliseconds: 300))
        try holder.execute(sql: "BEGIN IMMEDIATE TRANSACTION")
        let started = ContinuousClock.now
        let error = #expect(throws: SQLiteError.self) { try waiter.execute(sql: "BEGIN IMMEDIATE TRANSACTION") }
        #expect(error?.reason == .busy)
        #expect(ContinuousClock.now - started >= .milliseconds(300))

        try holder.execute(sql: "ROLLBACK TRANSACTION")
        try waiter.beginImmediate(waitingAtMost: 300)
        try waiter.execute(sql: "ROLLBACK TRANSACTION")
    }
}
