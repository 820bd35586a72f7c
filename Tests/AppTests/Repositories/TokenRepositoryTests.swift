import Foundation
import Storage
import Testing
@testable import App

struct TokenRepositoryTests {
    let clock = TestClock()

    private func setUp() async throws -> (TemporaryDatabase, TokenRepository, User) {
        let db = try await TemporaryDatabase()
        let user = User.fixture(at: clock.now)
        try await UserRepository(pool: db.pool).create(user)
        return (db, TokenRepository(pool: db.pool, now: clock.closure), user)
    }

    @Test func findsTheUserUntilTheTokenExpires() async throws {
        let (_, tokens, user) = try await setUp()
        try await tokens.create(.fixture(userID: user.id, at: clock.now, lifetime: 60))
        let hash = [UInt8](repeating: 1, count: 32)
        #expect(try await tokens.findUser(valueHash: hash) == user)
        clock.advance(by: 59.999)
        #expect(try await tokens.findUser(valueHash: hash) == user)
        clock.advance(by: 0.001)
        #expect(try await tokens.findUser(valueHash: hash) == nil)
        #expect(try await tokens.findUser(valueHash: [UInt8](repeating: 9, count: 32)) == nil)
    }

    @Test func tokenForAMissingUserIsAForeignKeyViolation() async throws {
        let (_, tokens, _) = try await setUp()
        let error = try await #require(throws: SQLiteError.self) {
            try await tokens.create(.fixture(userID: UUID(), at: clock.now))
        }
        #expect(error.reason == .foreignKeyConstraint)
    }

    @Test func duplicateHashIsAUniqueViolation() async throws {
        let (_, tokens, user) = try await setUp()
        try await tokens.create(.fixture(userID: user.id, at: clock.now))
        let error = try await #require(throws: SQLiteError.self) {
            try await tokens.create(.fixture(userID: user.id, at: clock.now))
        }
        #expect(error.reason == .uniqueConstraint)
    }

    @Test func deletesByHashAndByUser() async throws {
        let (_, tokens, user) = try await setUp()
        for hash in UInt8(1)...3 { try await tokens.create(.fixture(userID: user.id, hash: hash, at: clock.now)) }
        #expect(try await tokens.delete(valueHash: [UInt8](repeating: 1, count: 32)))
        #expect(try await tokens.delete(valueHash: [UInt8](repeating: 1, count: 32)) == false)
        #expect(try await tokens.findUser(valueHash: [UInt8](repeating: 1, count: 32)) == nil)
        #expect(try await tokens.findUser(valueHash: [UInt8](repeating: 2, count: 32)) == user)
        #expect(try await tokens.deleteAll(userID: user.id) == 2)
        #expect(try await tokens.findUser(valueHash: [UInt8](repeating: 2, count: 32)) == nil)
    }

    @Test func sweepsOnlyExpiredTokens() async throws {
        let (_, tokens, user) = try await setUp()
        try await tokens.create(.fixture(userID: user.id, hash: 1, at: clock.now, lifetime: 10))
        try await tokens.create(.fixture(userID: user.id, hash: 2, at: clock.now, lifetime: 100))
        clock.advance(by: 10)
        #expect(try await tokens.sweepExpired() == 1)
        #expect(try await tokens.sweepExpired() == 0)
        #expect(try await tokens.findUser(valueHash: [UInt8](repeating: 2, count: 32)) == user)
    }

    @Test func deletingTheUserCascadesToTokens() async throws {
        let (db, tokens, user) = try await setUp()
        try await tokens.create(.fixture(userID: user.id, at: clock.now))
        try await db.pool.write { try $0.execute(sql: "DELETE FROM users WHERE id = ?", arguments: [user.id]) }
        let left = try await db.pool.read { try $0.fetchOne(sql: "SELECT count(*) FROM tokens") { try $0[0] as Int } }
        #expect(left == 0)
    }
}
