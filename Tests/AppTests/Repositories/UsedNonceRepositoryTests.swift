import Foundation
import Storage
import Testing
@testable import App

struct UsedNonceRepositoryTests {
    let clock = TestClock()

    private func use(_ nonce: String, expiresIn seconds: TimeInterval) -> UsedNonceRepository.Use {
        UsedNonceRepository.Use(nonce: nonce, usedAt: clock.now, expiresAt: clock.now.addingTimeInterval(seconds))
    }

    @Test func aNonceIsRecordedOnceAndASecondUseWritesNothing() async throws {
        let db = try await TemporaryDatabase()
        let nonces = UsedNonceRepository(pool: db.pool, now: clock.closure)
        #expect(try await nonces.isUsed("a") == false)
        try await db.pool.write(UsedNonceRepository.record(use("a", expiresIn: 60)))
        #expect(try await nonces.isUsed("a"))
        let error = await #expect(throws: SQLiteError.self) {
            try await db.pool.write([SQL("CREATE TABLE marker (x INTEGER)"), UsedNonceRepository.record(use("a", expiresIn: 600))])
        }
        #expect(error?.reason == .uniqueConstraint && error?.statementIndex == 1)
        let marker = try await db.pool.read { db in
            try db.fetchOne(sql: "SELECT count(*) FROM sqlite_master WHERE name = 'marker'") { try $0[0] as Int }
        }
        #expect(marker == 0, "the second use rolls its transaction back")
    }

    /// A use is kept until its expiry: swept at `expires_at` (N), kept one millisecond before (N - 1).
    @Test func sweepDeletesAtExpiryAndNotBefore() async throws {
        let db = try await TemporaryDatabase()
        let nonces = UsedNonceRepository(pool: db.pool, now: clock.closure)
        _ = try await db.pool.write([UsedNonceRepository.record(use("due", expiresIn: 60)),
                                 UsedNonceRepository.record(use("later", expiresIn: 60.001))])
        clock.advance(by: 59.999)
        #expect(try await nonces.sweepExpired() == 0)
        clock.advance(by: 0.001)
        #expect(try await nonces.sweepExpired() == 1)
        #expect(try await nonces.isUsed("due") == false)
        #expect(try await nonces.isUsed("later"))
        clock.advance(by: 0.001)
        #expect(try await nonces.sweepExpired() == 1)
    }

    @Test func housekeepingSweepsUsedNonces() async throws {
        let app = try await TestApp.start()
        let state = try TestApp.newState()
        let token = try app.webToken(state: state, subject: "001.sweep")
        #expect(try await app.handle([("token", token)], state: state).status == .seeOther)
        #expect(try await app.count("used_nonces") == 1)
        try await app.server.services.database.write(SQL("UPDATE used_nonces SET expires_at = ?",
                                                         [Date(timeIntervalSince1970: 0)]))
        let removed = try await Housekeeping(services: app.server.services).sweep()
        #expect(removed["used_nonces"] == 1)
        #expect(try await app.count("used_nonces") == 0)
        await app.stop()
    }

    /// Housekeeping applies the Apple notifications kept for a `sub` that a user who moved here now holds (an import
    /// stopped before its end), and forgets those no user got within the transfer window, and those whose `sub` a
    /// user got by signing up, who did not exist when the event came (found by a review: it deleted such a user).
    @Test func housekeepingAppliesKeptNotificationsAndForgetsOldOnes() async throws {
        let app = try await TestApp.start()
        let services = app.server.services
        _ = try await app.sendJSON(.POST, "/api/users/siwa", [
            "token": try app.identityToken(subject: "001.before", email: "before@example.com"),
        ])
        let kept = [("kept", "001.after", Date()), ("old", "001.never", Date(timeIntervalSince1970: 0)),
                    ("signed-up", "001.new", Date())]
        for (jti, sub, receivedAt) in kept {
            try await services.database.write(AppleNotificationRepository.hold(
                .accountDelete, jti: jti, sub: sub, eventTime: receivedAt, receivedAt: receivedAt))
        }
        #expect(try await app.count("held_apple_notifications") == 3)
        try await services.database.write(SQL("UPDATE users SET siwa_identifier = ?, transferred_at = ?",
                                              ["001.after", Date()]))
        _ = try await app.sendJSON(.POST, "/api/users/siwa", [
            "token": try app.identityToken(subject: "001.new", email: "new@example.com"),
        ])
        let removed = try await Housekeeping(services: services).sweep()
        #expect(removed["held_apple_notifications"] == 2, "the one past the window, and the signed-up user's")
        #expect(removed["held_apple_notifications_applied"] == 1)
        #expect(try await app.count("users") == 1, "the moved user is deleted, the one who signed up stays")
        #expect(try await app.server.services.users.find(siwaIdentifier: "001.new") != nil)
        #expect(try await app.count("held_apple_notifications") == 0)
        await app.stop()
    }
}

/// The first sweep comes `firstSweepDelay` after start, long before `interval`. Found by a review: an instance that
/// lived less than 15 minutes never swept.
struct HousekeepingScheduleTests {
    @Test func theFirstSweepComesAfterTheFirstDelayNotTheInterval() async throws {
        #expect(Housekeeping.firstSweepDelay < Housekeeping.interval)
        let app = try await TestApp.start()
        let state = try TestApp.newState()
        #expect(try await app.handle([("token", try app.webToken(state: state, subject: "001.first"))], state: state)
            .status == .seeOther)
        try await app.server.services.database.write(SQL("UPDATE used_nonces SET expires_at = ?",
                                                         [Date(timeIntervalSince1970: 0)]))
        let housekeeping = Task { [services = app.server.services] in
            await Housekeeping(services: services).run(firstDelay: .milliseconds(50), interval: .seconds(3_600))
        }
        var left = try await app.count("used_nonces")
        for _ in 0..<600 where left > 0 {
            try await Task.sleep(for: .milliseconds(50))
            left = try await app.count("used_nonces")
        }
        housekeeping.cancel()
        await housekeeping.value
        #expect(left == 0, "the expired nonce was swept")
        await app.stop()
    }
}

/// Housekeeping skips a sweep when the wall clock moved against the monotonic clock since the last one: a clock that
/// runs ahead would delete rows that have not expired (found by an audit: a nonce signed in again afterwards).
struct WallClockCheckTests {
    @Test func aWallClockThatMovesWithTheMonotonicClockIsNoJump() {
        var check = WallClockCheck()
        let wall = Date(timeIntervalSince1970: 1_800_000_000)
        let monotonic = ContinuousClock.now
        #expect(check.jump(wall: wall, monotonic: monotonic) == nil, "the first look has nothing to compare")
        #expect(check.jump(wall: wall + 900, monotonic: monotonic + .seconds(900)) == nil)
        #expect(check.jump(wall: wall + 1_860, monotonic: monotonic + .seconds(1_800)) == nil, "60 s is tolerated")
    }

    @Test func aClockSetForwardThenBackIsTwoJumps() {
        var check = WallClockCheck()
        let wall = Date(timeIntervalSince1970: 1_800_000_000)
        let monotonic = ContinuousClock.now
        _ = check.jump(wall: wall, monotonic: monotonic)
        let month: TimeInterval = 31 * 86_400
        #expect(check.jump(wall: wall + 900 + month, monotonic: monotonic + .seconds(900)) == month)
        #expect(check.jump(wall: wall + 1_800, monotonic: monotonic + .seconds(1_800)) == -month)
        #expect(check.jump(wall: wall + 2_700, monotonic: monotonic + .seconds(2_700)) == nil, "sweeps again")
    }
}
