import AppleID
import Foundation
import IOCore
import Synchronization
import Testing
@testable import App

/// The chores' named limits at their boundaries: backoff, `Retry-After`, `APPLE_CHORES_INTERVAL`, the summary line.
struct ChoreLimitsTests {
    @Test func backoffStartsAtTheBaseAndStopsAtTheCap() {
        #expect(ChoreBackoff.delay(afterAttempt: 1, random: 0) == ChoreBackoff.base / 2)
        #expect(ChoreBackoff.delay(afterAttempt: 1, random: 1) == ChoreBackoff.base)
        #expect(ChoreBackoff.delay(afterAttempt: 2, random: 1) == 2 * ChoreBackoff.base)
        #expect(ChoreBackoff.delay(afterAttempt: 7, random: 1) == ChoreBackoff.cap)
        #expect(ChoreBackoff.delay(afterAttempt: 6, random: 1) == 32)
        #expect(ChoreBackoff.delay(afterAttempt: Int.max, random: 1) == ChoreBackoff.cap)
        #expect(ChoreBackoff.delay(afterAttempt: 0, random: 2) == ChoreBackoff.base)
    }

    /// Calls throttled together take one backoff step, not one each: found by an audit, 16 calls throttled at once
    /// took 16 steps, straight to the 60 s cap. A call sent after the step, throttled again, takes the next.
    @Test func callsThrottledTogetherTakeOneBackoffStep() async {
        let throttle = ChoreThrottle()
        let sentTogether = MonotonicClock.now()
        for _ in 0..<16 { await throttle.backOff(sentAt: sentTogether) }
        #expect(await throttle.steps == 1)
        let deadline = await throttle.deadline() ?? 0
        #expect(deadline <= MonotonicClock.now() + UInt64(ChoreBackoff.base * 1e9), "at most the base delay")
        await throttle.backOff(sentAt: MonotonicClock.now())
        #expect(await throttle.steps == 2)
        await throttle.succeeded()
        #expect(await throttle.steps == 0)
    }

    /// "Throttled and retried" counts the throttled answers a call was asked again after: one the run was stopped
    /// while waiting out is not counted. Found by a black-box review: a run stopped during Apple's `Retry-After` said
    /// "16 throttled and retried", none of them asked again.
    @Test func aThrottledAnswerCountsOnceItIsAskedAgain() async throws {
        let loops = try EventLoopGroup(loopCount: 1)
        defer { loops.shutdown() }
        let loop = loops.next()
        let calls = Atomic<Int>(0)
        let retried = await ChoreAttempts.settle(throttle: ChoreThrottle(), loop: loop) { () async throws -> Int in
            let call = calls.wrappingAdd(1, ordering: .relaxed).newValue
            if call == 1 { throw AppleAuthError(.throttled, retryAfterSeconds: 1) }
            return call
        }
        #expect(retried.throttled == 1 && calls.load(ordering: .relaxed) == 2)
        #expect(try retried.result?.get() == 2)

        let stopped = Task {
            await ChoreAttempts.settle(throttle: ChoreThrottle(), loop: loop) { () async throws -> Int in
                throw AppleAuthError(.throttled, retryAfterSeconds: 3600)
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        stopped.cancel()
        let (result, throttled) = await stopped.value
        #expect(result == nil && throttled == 0, "stopped while waiting out Apple's Retry-After: nothing was retried")
    }

    /// README: another instance takes over a dead holder's chores within 2 minutes: the lease lapses, then the next
    /// look at most `maxPollInterval` later takes it (found by an audit at up to 180 s).
    @Test func aDeadHoldersLeaseIsTakenOverWithinTwoMinutes() {
        #expect(ChoreLease.duration + ChoreSchedule.maxPollInterval <= 120)
        #expect(ChoreLease.renewal == 30, "two renewals may fail before the lease lapses")
    }

    @Test func retryAfterIsHonouredUpToTheCap() {
        #expect(ChoreBackoff.retryAfter(3600) == ChoreBackoff.maxRetryAfter)
        #expect(ChoreBackoff.retryAfter(3601) == ChoreBackoff.maxRetryAfter)
        #expect(ChoreBackoff.retryAfter(17) == 17)
        #expect(ChoreBackoff.retryAfter(-1) == 0)
    }

    @Test func choresIntervalAcceptsUnitsUpToSevenDays() throws {
        #expect(Configuration.interval("0") == 0)
        #expect(Configuration.interval("24h") == 86400)
        #expect(Configuration.interval("90m") == 5400)
        #expect(Configuration.interval("3600") == 3600)
        #expect(Configuration.interval("7d") == Configuration.maxAppleChoresInterval)
        #expect(Configuration.interval("604801s") == nil)
        #expect(Configuration.interval("1m") == Configuration.minAppleChoresInterval)
        #expect(Configuration.interval("59s") == nil)
        #expect(Configuration.interval("0.001") == nil)
        #expect(Configuration.interval("1e-9s") == nil)
        #expect(Configuration.interval("-1h") == nil)
        #expect(Configuration.interval("daily") == nil)
        #expect(try Configuration.load(dotEnvPath: "/nonexistent", environment: ["APPLE_CHORES_INTERVAL": "0"])
            .appleChoresEvery == nil)
    }

    @Test func choresRunDailyByDefaultOnlyWithTheAppleKey() {
        var configuration = Configuration()
        #expect(configuration.appleChoresEvery == nil)
        configuration.appleKey = Configuration.AppleKeyConfiguration(teamID: "T", keyID: "K", privateKeyPath: "/k.p8")
        #expect(configuration.appleChoresEvery == Configuration.defaultAppleChoresInterval)
        configuration.appleChoresInterval = 0
        #expect(configuration.appleChoresEvery == nil)
    }

    /// `siwa serve` logs a run's summary at `notice` when nothing failed, `warning` when some tokens failed, and
    /// `error` when Apple refused the server's own key. Found by an audit: all were `notice`.
    @Test func theSummaryIsLoggedAtTheLevelItsFailuresCallFor() {
        var tally = ChoreTally(chore: .retryRevocations)
        tally.add(.revoked)
        #expect(tally.logLevel == .notice)
        tally.add(.failed(reason: "unreachable"))
        #expect(tally.logLevel == .warning)
        tally.add(.failed(reason: "apple: invalid_client"))
        #expect(tally.logLevel == .error)
        var unauthorized = ChoreTally(chore: .validateTokens)
        unauthorized.add(.failed(reason: "apple: unauthorized_client"))
        #expect(unauthorized.logLevel == .error)
    }

    @Test func theSummaryCountsByOutcomeAndTheExitStatusSaysWhatIsLeft() {
        var tally = ChoreTally(chore: .validateTokens)
        tally.due = 4
        tally.add(.valid, throttledRetries: 2)
        tally.add(.revoked)
        #expect(tally.exitStatus == 0)
        tally.add(.failed(reason: "unreachable"))
        tally.add(.interrupted)
        #expect(tally.exitStatus == 1)
        #expect(tally.summary == "validate-tokens: 4 due, 1 valid, 1 revoked, 2 throttled and retried, "
            + "1 failed (unreachable: 1), 1 interrupted, in 0.0 s")
        tally.seconds = 2
        #expect(ChoreProgress.line(tally) == "validate-tokens: 3/4 (75%), 2/s, 1 s left, 2 throttled")
        tally.seconds = 0
        tally.due = 10
        tally.heldByOtherRuns = 3
        #expect(tally.exitStatus == 1)
        #expect(tally.summary.hasSuffix("1 interrupted, 6 taken by other runs or replaced by sign-ins, 3 held by other runs, in 0.0 s"),
                "\(tally.summary)")
    }

    /// A claim the database refused (a full disk) ends the run: what it did not reach is still due, not "taken by other
    /// runs" (found by an audit), and the run exits 1.
    @Test func aFailedClaimLeavesTheRestDueAndSaysSo() {
        var tally = ChoreTally(chore: .validateTokens)
        tally.due = 100
        for _ in 0..<32 { tally.add(.valid) }
        tally.claimFailures += 1
        #expect(tally.exitStatus == 1)
        #expect(tally.logLevel == .warning)
        // The counts add up to what was due: the failed claim is no token's (found by a black-box review: 101).
        #expect(tally.summary == "validate-tokens: 100 due, 32 valid, 0 revoked, 0 throttled and retried, "
            + "0 failed, 0 interrupted, 68 not reached (claiming them failed; still due), in 0.0 s",
                "\(tally.summary)")
        var nothingDue = ChoreTally(chore: .retryRevocations)
        nothingDue.claimFailures += 1
        #expect(nothingDue.exitStatus == 1)
        #expect(nothingDue.summary == "retry-revocations: 0 due, 0 revoked, 0 throttled and retried, 0 failed, "
            + "0 interrupted, 0 not reached (claiming them failed; still due), in 0.0 s", "\(nothingDue.summary)")
    }

    @Test func aFailureSaysWhetherAppleAnsweredOrWasNotReached() {
        #expect(ChoreRun.reason(AppleAuthError(.unreachable, detail: "connect refused")) == "unreachable")
        #expect(ChoreRun.reason(AppleAuthError(.unreachable, detail: "answered 500", status: 500)) == "apple: HTTP 500")
        #expect(ChoreRun.reason(AppleAuthError(.apple("invalid_client"))) == "apple: invalid_client")
        #expect(AppleAuthError(.unreachable, status: 502).likelyCause.contains("Apple answered 502"))
        #expect(!AppleAuthError(.unreachable).likelyCause.contains("answered"))
    }
}
