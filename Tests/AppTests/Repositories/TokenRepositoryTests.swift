import CryptoCore
import Foundation
import JSON
import Storage
import Testing
@testable import App

struct TokenRepositoryTests {
    let clock = TestClock()

    /// The repository on a fresh database, and that database, which the test keeps until its end: released early,
    /// it deletes the file under the pool.
    private func setUp() async throws -> (TemporaryDatabase, TokenRepository, User) {
        let db = try await TemporaryDatabase()
        let user = User.fixture(at: clock.now)
        try await UserRepository(pool: db.pool).create(user)
        return (db, TokenRepository(pool: db.pool, now: clock.closure), user)
    }

    @Test func findsTheUserUntilTheTokenExpires() async throws {
        let (database, tokens, user) = try await setUp()
        defer { withExtendedLifetime(database) {} }
        try await tokens.create(.fixture(userID: user.id, at: clock.now, lifetime: 60))
        #expect(try await tokens.findUser(.fixture(1)) == user)
        clock.advance(by: 59.999)
        #expect(try await tokens.findUser(.fixture(1)) == user)
        clock.advance(by: 0.001)
        #expect(try await tokens.findUser(.fixture(1)) == nil)
        #expect(try await tokens.findUser(.fixture(9)) == nil)
    }

    @Test func aValueNamingTheRightIdWithAnotherSecretFindsNothing() async throws {
        let (database, tokens, user) = try await setUp()
        defer { withExtendedLifetime(database) {} }
        try await tokens.create(.fixture(userID: user.id, hash: 1, at: clock.now))
        let id = BearerTokenValue.fixtureID(1)
        let forged = BearerTokenValue(BearerTokenValue.text(id: id, secret: [UInt8](repeating: 2, count: BearerTokenValue.secretBytes)))
        #expect(forged.id == id)
        #expect(try await tokens.find(forged) == nil)
        #expect(try await tokens.find(.fixture(1))?.tokenID == id)
    }

    @Test func valuesThatNameNoIdAreLookedUpByHashAmongLegacyTokensOnly() async throws {
        let (db, tokens, user) = try await setUp()
        // A new token whose stored hash is that of a 43-character value: found neither by id nor by hash.
        let legacyText = Base64URL.encode([UInt8](repeating: 3, count: 32))
        try await tokens.create(BearerToken(id: BearerTokenValue.fixtureID(3), userID: user.id,
                                            valueHash: SHA256.hash(legacyText), createdAt: clock.now,
                                            expiresAt: clock.now + 60))
        #expect(try await tokens.findUser(BearerTokenValue(legacyText)) == nil)
        // Marked legacy (version 8, as the migration does): found by its hash.
        try await db.pool.write { db in
            try db.execute(sql: "UPDATE tokens SET id = substr(id, 1, 14) || '8' || substr(id, 16)")
        }
        #expect(try await tokens.findUser(BearerTokenValue(legacyText)) == user)
        #expect(try await tokens.findUser(BearerTokenValue(legacyText + "A")) == nil)
    }

    @Test func aLegacyValueWhoseBytesUnmaskToAnIdIsStillFoundByItsHash() async throws {
        let (db, tokens, user) = try await setUp()
        // 32 random bytes whose first 16 happen to unmask to a version-7 id with the RFC 9562 variant (1 in 64
        // legacy values): made here as a value for an id that has no row.
        let legacyText = BearerTokenValue.text(id: .timeOrdered(now: clock.now.addingTimeInterval(-1)),
                                               secret: [UInt8](repeating: 9, count: BearerTokenValue.secretBytes))
        #expect(BearerTokenValue(legacyText).id != nil)
        try await tokens.create(BearerToken(id: UUID.timeOrdered(now: clock.now), userID: user.id,
                                            valueHash: SHA256.hash(legacyText), createdAt: clock.now,
                                            expiresAt: clock.now + 60))
        try await db.pool.write { db in
            try db.execute(sql: "UPDATE tokens SET id = substr(id, 1, 14) || '8' || substr(id, 16)")
        }
        let found = try #require(try await tokens.find(BearerTokenValue(legacyText)))
        #expect(found.user == user)
        #expect(found.tokenID != BearerTokenValue(legacyText).id)
    }

    @Test func tokenForAMissingUserIsAForeignKeyViolation() async throws {
        let (database, tokens, _) = try await setUp()
        defer { withExtendedLifetime(database) {} }
        let error = try await #require(throws: SQLiteError.self) {
            try await tokens.create(.fixture(userID: UUID(), at: clock.now))
        }
        #expect(error.reason == .foreignKeyConstraint)
    }

    @Test func duplicateIdIsAUniqueViolation() async throws {
        let (database, tokens, user) = try await setUp()
        defer { withExtendedLifetime(database) {} }
        try await tokens.create(.fixture(userID: user.id, at: clock.now))
        let error = try await #require(throws: SQLiteError.self) {
            try await tokens.create(.fixture(userID: user.id, at: clock.now))
        }
        #expect(error.reason == .uniqueConstraint)
    }

    @Test func deletesByIdAndByUser() async throws {
        let (database, tokens, user) = try await setUp()
        defer { withExtendedLifetime(database) {} }
        for hash in UInt8(1)...3 { try await tokens.create(.fixture(userID: user.id, hash: hash, at: clock.now)) }
        #expect(try await tokens.delete(id: BearerTokenValue.fixtureID(1)))
        #expect(try await tokens.delete(id: BearerTokenValue.fixtureID(1)) == false)
        #expect(try await tokens.findUser(.fixture(1)) == nil)
        #expect(try await tokens.findUser(.fixture(2)) == user)
        #expect(try await tokens.deleteAll(userID: user.id) == 2)
        #expect(try await tokens.findUser(.fixture(2)) == nil)
    }

    /// A backlog is deleted in batches, every expired row and only those, whatever their number against the batch.
    @Test(arguments: [1, 2, 3, 7])
    func expiredRowsGoInBatches(batch: Int) async throws {
        let (database, tokens, user) = try await setUp()
        for hash in 1...6 { try await tokens.create(.fixture(userID: user.id, hash: UInt8(hash), at: clock.now, lifetime: 10)) }
        try await tokens.create(.fixture(userID: user.id, hash: 7, at: clock.now, lifetime: 100))
        clock.advance(by: 10)
        #expect(try await database.pool.deleteRows(expiredAt: clock.now, from: "tokens", batch: batch) == 6)
        #expect(try await database.pool.deleteRows(expiredAt: clock.now, from: "tokens", batch: batch) == 0)
        #expect(try await tokens.findUser(.fixture(7)) == user)
    }

    @Test func sweepsOnlyExpiredTokens() async throws {
        let (database, tokens, user) = try await setUp()
        defer { withExtendedLifetime(database) {} }
        try await tokens.create(.fixture(userID: user.id, hash: 1, at: clock.now, lifetime: 10))
        try await tokens.create(.fixture(userID: user.id, hash: 2, at: clock.now, lifetime: 100))
        clock.advance(by: 10)
        #expect(try await tokens.sweepExpired() == 1)
        #expect(try await tokens.sweepExpired() == 0)
        #expect(try await tokens.findUser(.fixture(2)) == user)
    }

    @Test func deletingTheUserCascadesToTokens() async throws {
        let (db, tokens, user) = try await setUp()
        try await tokens.create(.fixture(userID: user.id, at: clock.now))
        try await db.pool.write { try $0.execute(sql: "DELETE FROM users WHERE id = ?", arguments: [user.id]) }
        let left = try await db.pool.read { try $0.fetchOne(sql: "SELECT count(*) FROM tokens") { try $0[0] as Int } }
        #expect(left == 0)
    }
}
