import Foundation
import Storage
import Testing
@testable import App

struct SignInSupportRepositoryTests {
    let clock = TestClock()

    @Test func jwksCacheKeepsTheLastSave() async throws {
        let db = try await TemporaryDatabase()
        let cache = JWKSCacheRepository(pool: db.pool)
        #expect(try await cache.load() == nil)
        try await cache.save(CachedJWKS(body: Array(#"{"keys":[]}"#.utf8), fetchedAt: clock.now))
        let newer = CachedJWKS(body: Array(#"{"keys":[{"kid":"a"}]}"#.utf8), fetchedAt: clock.now.addingTimeInterval(5))
        try await cache.save(newer)
        #expect(try await cache.load() == newer)
        let rows = try await db.pool.read { try $0.fetchOne(sql: "SELECT count(*) FROM jwks_cache") { try $0[0] as Int } }
        #expect(rows == 1)
    }

    @Test func notificationIsRecordedOncePerJTI() async throws {
        let db = try await TemporaryDatabase()
        let notifications = AppleNotificationRepository(pool: db.pool, now: clock.closure)
        #expect(try await notifications.recordIfNew(jti: "a"))
        #expect(try await notifications.recordIfNew(jti: "a") == false)
        #expect(try await notifications.recordIfNew(jti: "b"))
        clock.advance(by: 10)
        #expect(try await notifications.sweep(receivedBefore: clock.now) == 2)
        #expect(try await notifications.recordIfNew(jti: "a"))
    }

    @Test func pendingRevocationsAreListedRetriedAndDeleted() async throws {
        let db = try await TemporaryDatabase()
        let pending = PendingRevocationRepository(pool: db.pool)
        let first = PendingRevocation(clientID: "c", encryptedToken: [1], createdAt: clock.now)
        let second = PendingRevocation(clientID: "c", encryptedToken: [2], createdAt: clock.now.addingTimeInterval(1))
        try await pending.add(first)
        try await pending.add(second)
        #expect(try await pending.list(limit: 10) == [first, second])
        #expect(try await pending.recordFailure(id: first.id, error: "HTTP 503"))
        let listed = try await pending.list(limit: 10)
        #expect(listed.map(\.id) == [second.id, first.id])
        #expect(listed.last?.attempts == 1 && listed.last?.lastError == "HTTP 503")
        #expect(try await pending.list(limit: 1).count == 1)
        #expect(try await pending.delete(id: first.id))
        #expect(try await pending.delete(id: first.id) == false)
        #expect(try await pending.recordFailure(id: first.id, error: "x") == false)
    }
}
