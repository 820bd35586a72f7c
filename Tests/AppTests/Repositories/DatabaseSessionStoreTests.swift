import CryptoCore
import Foundation
import Storage
import Testing
import Web
@testable import App

struct DatabaseSessionStoreTests {
    let clock = TestClock()

    @Test func savesLoadsReplacesAndDeletes() async throws {
        let db = try await TemporaryDatabase()
        let store = DatabaseSessionStore(pool: db.pool, now: clock.closure)
        let userID = UUID()
        let record = SessionRecord(data: ["userID": userID.uuidString, "note": "é \"quoted\""],
                                   expiresAt: clock.now.addingTimeInterval(60))
        try await store.save(id: "abc", record: record)
        var lowerCase = record
        lowerCase.data["userID"] = userID.text(uppercase: false)
        #expect(try await store.load(id: "abc") == lowerCase, "the user id as the API writes it, from its column")
        let replaced = SessionRecord(data: ["a": "b"], expiresAt: clock.now.addingTimeInterval(120))
        try await store.save(id: "abc", record: replaced)
        #expect(try await store.load(id: "abc") == replaced)
        try await store.delete(id: "abc")
        #expect(try await store.load(id: "abc") == nil)
        try await store.delete(id: "unknown")
    }

    /// An update changes a live session only: one deleted or expired meanwhile stays ended.
    @Test func anUpdateChangesOnlyALiveSession() async throws {
        let db = try await TemporaryDatabase()
        let store = DatabaseSessionStore(pool: db.pool, now: clock.closure)
        let record = SessionRecord(data: ["a": "1"], expiresAt: clock.now.addingTimeInterval(60))
        try await store.save(id: "live", record: record)
        let changed = SessionRecord(data: ["a": "2"], expiresAt: clock.now.addingTimeInterval(120))
        #expect(try await store.update(id: "live", record: changed))
        #expect(try await store.load(id: "live") == changed)
        try await store.delete(id: "live")
        #expect(try await store.update(id: "live", record: changed) == false)
        #expect(try await store.load(id: "live") == nil, "not brought back")
        try await store.save(id: "short", record: SessionRecord(data: [:], expiresAt: clock.now.addingTimeInterval(10)))
        clock.advance(by: 10)
        #expect(try await store.update(id: "short", record: changed) == false, "expired")
        #expect(try await store.update(id: "never", record: changed) == false)
    }

    @Test func expiredSessionsAreInvisibleThenSwept() async throws {
        let db = try await TemporaryDatabase()
        let store = DatabaseSessionStore(pool: db.pool, now: clock.closure)
        try await store.save(id: "short", record: SessionRecord(data: [:], expiresAt: clock.now.addingTimeInterval(10)))
        try await store.save(id: "long", record: SessionRecord(data: [:], expiresAt: clock.now.addingTimeInterval(100)))
        clock.advance(by: 10)
        #expect(try await store.load(id: "short") == nil)
        #expect(try await store.load(id: "long") != nil)
        #expect(try await store.sweepExpired() == 1)
        #expect(try await store.sweepExpired() == 0)
    }

    @Test func keepsTheUserIDColumnForDeletionByUser() async throws {
        let db = try await TemporaryDatabase()
        let store = DatabaseSessionStore(pool: db.pool, now: clock.closure)
        let userID = UUID()
        let expires = clock.now.addingTimeInterval(60)
        try await store.save(id: "1", record: SessionRecord(data: ["userID": userID.uuidString], expiresAt: expires))
        try await store.save(id: "2", record: SessionRecord(data: ["userID": userID.uuidString], expiresAt: expires))
        try await store.save(id: "3", record: SessionRecord(data: ["userID": "not a uuid"], expiresAt: expires))
        let column = try await db.pool.read {
            try $0.fetchOne(sql: "SELECT user_id FROM sessions WHERE id = ?", arguments: [DatabaseSessionStore.storageKey("1")]) { try $0[0] as String? }
        }
        #expect(column == userID.uuidString.lowercased())
        #expect(try await store.deleteAll(userID: userID) == 2)
        #expect(try await store.load(id: "3") != nil)
    }

    @Test func unreadableDataLoadsAsNoSession() async throws {
        let db = try await TemporaryDatabase()
        let store = DatabaseSessionStore(pool: db.pool, now: clock.closure)
        let expires = clock.now.addingTimeInterval(60)
        try await db.pool.write {
            try $0.execute(sql: "INSERT INTO sessions (id, data, expires_at) VALUES (?, ?, ?)",
                           arguments: ["bad", "[1, 2", expires])
        }
        #expect(try await store.load(id: "bad") == nil)
    }
}

extension DatabaseSessionStoreTests {
    @Test func sessionIdsAreStoredOnlyAsHashes() async throws {
        let db = try await TemporaryDatabase()
        let store = DatabaseSessionStore(pool: db.pool)
        let id = "session-id-secret-value"
        try await store.save(id: id, record: SessionRecord(data: ["a": "b"], expiresAt: Date().addingTimeInterval(60)))
        let ids = try await db.pool.read { try $0.fetchAll(sql: "SELECT id FROM sessions") { try $0[0] as String } }
        #expect(ids == [SHA256.hexHash(id)])
        #expect(try await store.load(id: id)?.data == ["a": "b"])
    }
}
