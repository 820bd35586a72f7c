import Foundation
import Storage
import Synchronization
import TestSupport
import Testing
@testable import App

/// Apple's chores at their boundaries: a token gone while its run waited out Apple's throttling, and tokens simply
/// due soon, which no run holds. Found by a review.
@Suite(.serialized, .timeLimit(.minutes(4)))
struct ChoreBoundaryTests {
    /// A daily run (a cron job at the same time, `siwa serve`'s 24 h schedule) checks each token every day: the next
    /// day's run, begun a day after this one, takes the tokens this one answered seconds into it; a run begun less
    /// than a day later takes none. Found by a review: they were due a day after their answer, after the next run had
    /// begun, and were checked every other day.
    @Test func aDailyRunChecksEachTokenEveryDay() async throws {
        try await TestApp.with { app in
            try await app.seedAppleTokens(10)
            try await app.makeAppleTokensDue()
            await app.apple.setTokenLatency(0.2)
            let day0 = Date()
            let first = try await app.runChore(.validateTokens, configure: { $0.appleMaxConnections = 1 })
            #expect(first.summary.contains("10 valid"), "\(first)")
            let early = try await app.runChore(.validateTokens, clock: { Date().addingTimeInterval(23 * 3600) })
            #expect(early.summary.hasPrefix("validate-tokens: 0 due"), "less than a day later: \(early)")
            let shift = 24 * 3600 - Date().timeIntervalSince(day0)
            let second = try await app.runChore(.validateTokens, clock: { Date().addingTimeInterval(shift) },
                                                configure: { $0.appleMaxConnections = 1 })
            #expect(second.summary.contains("10 valid"), "the next day: \(second)")
        }
    }

    /// Due a day after the run began (less a minute for a cron job's start), never more than an hour before a day
    /// after the check.
    @Test func aCheckedTokensNextDueTime() {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let day = AppleTokenRepository.checkInterval
        #expect(AppleTokenRepository.nextDue(checkedAt: start + 10, runStartedAt: start) == start + day - 60)
        #expect(AppleTokenRepository.nextDue(checkedAt: start + 3_540, runStartedAt: start) == start + day - 60)
        #expect(AppleTokenRepository.nextDue(checkedAt: start + 7_200, runStartedAt: start) == start + 3_600 + day)
    }

    /// Validates the user `subject`'s token (signed in with a code, then due) through a proxy that throttles it, and
    /// runs `meanwhile` once the run waits out the first throttled answer; then Apple's pause turns out to have lasted
    /// six minutes, more than half a claim's lease. Returns the run's report.
    private func validateThroughALongThrottle(_ app: TestApp, subject: String,
                                              meanwhile: (_ bearer: String) async throws -> Void) async throws
        -> ChoreReport
    {
        let port = Int(app.apple.baseURL.split(separator: ":").last ?? "") ?? 0
        let proxy = try AppleProxy(upstreamPort: port)
        let signIn = try await app.signInWithAuthorizationCode(subject: subject, email: "\(subject)@example.com")
        let bearer = try #require(try signIn.json()["value"] as? String)
        try await app.makeAppleTokensDue()
        proxy.setTokenFault(.throttled(retryAfter: 2))
        let offset = Mutex<TimeInterval>(0)
        let run = Task {
            try await app.runChore(.validateTokens, clock: { Date().addingTimeInterval(offset.withLock { $0 }) },
                                   configure: { $0.appleBaseURL = proxy.baseURL })
        }
        while proxy.throttledAnswers == 0 { try await Task.sleep(for: .milliseconds(20)) }
        try await meanwhile(bearer)
        offset.withLock { $0 = 6 * 60 }
        proxy.setTokenFault(.none)
        return try await run.value
    }

    /// The user signs in again with a code while the run holding their old token waits out Apple's throttling: the
    /// old token is gone (replaced), counted with what sign-ins replaced, and the run exits 0. It was counted
    /// interrupted, with a warning that a lease lapsed, and the run exited 1.
    @Test func aTokenReplacedDuringALongThrottleIsNotAnInterruption() async throws {
        try await TestApp.with { app in
            let subject = "001.replaced"
            let report = try await validateThroughALongThrottle(app, subject: subject) { _ async throws in
                #expect(try await app.signInWithAuthorizationCode(subject: subject, email: "r@example.com").status == .ok)
            }
            #expect(report.exitStatus == 0, "\(report)")
            #expect(report.summary.contains("0 interrupted"), "\(report)")
        }
    }

    /// The same throttle, and nothing meanwhile: the run keeps its claim and the token is checked (the control).
    @Test func aTokenKeptDuringALongThrottleIsChecked() async throws {
        try await TestApp.with { app in
            let report = try await validateThroughALongThrottle(app, subject: "001.kept") { _ in }
            #expect(report.exitStatus == 0, "\(report)")
            #expect(report.summary.contains("1 valid"), "\(report)")
        }
    }

    /// No other run exists; five tokens were simply checked yesterday a few minutes later in the day than this run
    /// ends, so they are due a few minutes from now. README: "N held by other runs" is for "tokens another run has
    /// claimed and not finished".
    @Test func tokensDueInAFewMinutesAreNotHeldByOtherRuns() async throws {
        try await TestApp.with { app in
            try await app.seedAppleTokens(10)
            try await app.makeAppleTokensDue()
            let database = app.server.services.database
            try await database.write(SQL("""
                UPDATE apple_tokens SET checked_at = ?, due_at = ? WHERE id IN (SELECT id FROM apple_tokens ORDER BY id LIMIT 5)
                """, [Date().addingTimeInterval(-86_400 + 300), Date().addingTimeInterval(300)]))
            let report = try await app.runChore(.validateTokens)
            #expect(report.summary.contains("5 valid"), "\(report)")
            #expect(!report.summary.contains("held by other runs"), "\(report)")
        }
    }

    /// The user deletes their account while the run holding their token waits out Apple's throttling: the token was
    /// revoked by the deletion and is gone, which is no interruption.
    @Test func anAccountDeletedDuringALongThrottleIsNotAnInterruption() async throws {
        try await TestApp.with { app in
            let report = try await validateThroughALongThrottle(app, subject: "001.deleted") { bearer in
                let deleted = try await app.sendJSON(.DELETE, "/api/users/me", [:], bearer: bearer)
                #expect(deleted.status.code < 300, "\(deleted.status)")
                #expect(try await app.count("users") == 0)
                #expect(try await app.count("pending_revocations") == 0)
            }
            #expect(report.exitStatus == 0, "\(report)")
        }
    }
}
