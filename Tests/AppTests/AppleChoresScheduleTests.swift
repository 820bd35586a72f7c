import Foundation
import Glibc
import Storage
import TestSupport
import Testing
@testable import App

/// `siwa serve` running Apple's chores itself (`APPLE_CHORES_INTERVAL`) on one instance at a time, and a chore
/// stopped by SIGTERM handing its claimed tokens back.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct AppleChoresScheduleTests {
    @Test func theScheduleRunsOnExactlyOneOfTwoInstances() async throws {
        let directory = TestApp.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await TestApp.with(directory: directory) { seeder in
            try await seeder.seedAppleTokens(30)
            let apple = seeder.apple.baseURL
            var instances: [TestApp] = []
            do {
                for _ in 0..<2 {
                    instances.append(try await TestApp.start(directory: directory) { configuration in
                        configuration.appleChoresInterval = 3600
                        configuration.appleBaseURL = apple
                    })
                }
                let runs = { instances.map { app in AppleChoreKind.allCases.map { app.server.services.metrics.chores.runs[$0.slot] } } }
                let deadline = ContinuousClock.now + .seconds(60)
                while ContinuousClock.now < deadline {
                    let checked = try await seeder.checkedTokens()
                    if runs().flatMap({ $0 }).reduce(0, +) >= 2, checked == 30 { break }
                    try await Task.sleep(for: .milliseconds(100))
                }
                // The lease goes back once the second chore has ended and the renewing task has seen it (within a
                // `ChoreSleep.slice`): waited for, not assumed after a fixed time, on a busy machine.
                var nextRun: Date?
                let released = ContinuousClock.now + .seconds(30)
                while ContinuousClock.now < released {
                    nextRun = try await seeder.server.services.database.readOne(
                        SQL("SELECT next_run_at FROM chore_leases WHERE holder IS NULL")) { try $0[0] as Date }
                    if nextRun != nil { break }
                    try await Task.sleep(for: .milliseconds(100))
                }
                #expect(runs().filter { $0 == [1, 1] }.count == 1, "one instance ran both chores: \(runs())")
                #expect(runs().filter { $0 == [0, 0] }.count == 1, "the other ran none: \(runs())")
                #expect(await seeder.apple.refreshCalls() == 30)
                #expect((nextRun ?? .distantPast) > Date().addingTimeInterval(3000), "the next run is an interval away")
            } catch {
                for app in instances { await app.stop(keepFiles: true) }
                throw error
            }
            for app in instances { await app.stop(keepFiles: true) }
        }
    }

    /// A next run stored further off than the interval an instance now has (the operator went from 7 days to an
    /// hour) is due at once; within the interval it waits as before. Found by an audit: a shortened
    /// `APPLE_CHORES_INTERVAL` waited for the run the old one had set.
    @Test func aShortenedIntervalMakesTheStoredNextRunDueAtOnce() async throws {
        try await TestApp.with(lifecycle: false) { app in
            let database = app.server.services.database
            let first = ChoreLease(pool: database, holder: "first")
            let now = Date()
            #expect(try await first.acquire(now: now, interval: 7 * 86_400))
            try await first.release(now: now, nextRun: now.addingTimeInterval(7 * 86_400))
            let later = now.addingTimeInterval(60)
            let second = ChoreLease(pool: database, holder: "second")
            #expect(try await !second.acquire(now: later, interval: 7 * 86_400), "not due within its interval")
            #expect(try await !second.acquire(now: later, interval: 30 * 86_400), "nor within a longer one")
            #expect(try await second.acquire(now: later, interval: 3_600), "due at once with a shorter interval")
        }
    }

    /// Two instances with the same interval, the second one's clock a minute behind: the next run the first set is
    /// not taken for a shortened interval's. Found by an audit: with skewed clocks each interval had two runs.
    @Test func anInstanceWhoseClockIsBehindWaitsForTheNextRun() async throws {
        try await TestApp.with(lifecycle: false) { app in
            let database = app.server.services.database
            let first = ChoreLease(pool: database, holder: "first")
            let now = Date()
            #expect(try await first.acquire(now: now, interval: 120))
            try await first.release(now: now, nextRun: now.addingTimeInterval(120))
            let behind = ChoreLease(pool: database, holder: "behind")
            #expect(try await !behind.acquire(now: now.addingTimeInterval(-60), interval: 120))
            #expect(try await !behind.acquire(now: now.addingTimeInterval(-ChoreLease.clockSkewAllowance + 1),
                                              interval: 120))
            #expect(try await behind.acquire(now: now.addingTimeInterval(121), interval: 120), "due at its time")
        }
    }

    @Test func sigtermStopsAChoreAndHandsItsTokensBack() async throws {
        try await TestApp.with { app in
            let count = 300
            let run = try await app.spawnValidation(seeding: count, bound: 2, untilChecked: 10)
            run.signal(SIGTERM)
            #expect(await run.exited(within: .seconds(30 * Sanitizer.timeScale)) == 1, "\(run.output)")
            #expect(run.output.contains(" interrupted, in "), "\(run.output)")
            let checked = try await app.checkedTokens()
            let due = try await app.server.services.database.readOne(SQL(
                "SELECT COUNT(*) FROM apple_tokens WHERE checked_at IS NULL AND due_at < ?",
                [Date().addingTimeInterval(1)])) { try $0[0] as Int }
            #expect(due == count - checked, "no token is left leased by the stopped run")
        }
    }
}
