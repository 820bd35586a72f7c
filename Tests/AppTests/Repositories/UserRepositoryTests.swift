import Foundation
import Storage
import Testing
import Web
@testable import App

struct UserRepositoryTests {
    let clock = TestClock()

    @Test func createsAndFindsByIDAndIdentifier() async throws {
        let db = try await TemporaryDatabase()
        let users = UserRepository(pool: db.pool, now: clock.closure)
        let user = User.fixture(at: clock.now)
        try await users.create(user)
        #expect(try await users.find(id: user.id) == user)
        #expect(try await users.find(siwaIdentifier: "001234.abcdef") == user)
        #expect(try await users.find(id: UUID()) == nil)
        #expect(try await users.find(siwaIdentifier: "unknown") == nil)
    }

    @Test func duplicateIdentifierIsAUniqueViolation() async throws {
        let db = try await TemporaryDatabase()
        let users = UserRepository(pool: db.pool)
        try await users.create(.fixture(at: clock.now))
        let error = try await #require(throws: SQLiteError.self) { try await users.create(.fixture(at: clock.now)) }
        #expect(error.reason == .uniqueConstraint)
    }

    @Test func updatesEmailNameAndPrivateFlag() async throws {
        let db = try await TemporaryDatabase()
        let users = UserRepository(pool: db.pool, now: clock.closure)
        let user = User.fixture(at: clock.now)
        try await users.create(user)
        clock.advance(by: 60)
        #expect(try await users.updateEmail(id: user.id, email: "x@privaterelay.appleid.com", isPrivateEmail: true))
        #expect(try await users.updateName(id: user.id, name: "J. Doe"))
        var stored = try #require(try await users.find(id: user.id))
        #expect(stored.email == "x@privaterelay.appleid.com" && stored.isPrivateEmail && stored.name == "J. Doe")
        #expect(stored.updatedAt == clock.now && stored.createdAt == user.createdAt)
        #expect(try await users.updatePrivateEmail(id: user.id, isPrivateEmail: false))
        stored = try #require(try await users.find(id: user.id))
        #expect(!stored.isPrivateEmail)
        #expect(try await users.updateName(id: UUID(), name: "nobody") == false)
        #expect(try await users.updateEmail(id: UUID(), email: "a@b", isPrivateEmail: false) == false)
    }

    @Test func createUserAndTokenIsAllOrNothing() async throws {
        let db = try await TemporaryDatabase()
        let users = UserRepository(pool: db.pool)
        let tokens = TokenRepository(pool: db.pool, now: clock.closure)
        let user = User.fixture(at: clock.now)
        try await users.createUserAndToken(user, token: .fixture(userID: user.id, at: clock.now))
        #expect(try await tokens.findUser(.fixture(1)) == user)
        // Second user with a clashing token hash: the user insert must be rolled back too.
        let other = User.fixture(sub: "other", at: clock.now)
        await #expect(throws: SQLiteError.self) {
            try await users.createUserAndToken(other, token: .fixture(userID: other.id, at: clock.now))
        }
        #expect(try await users.find(id: other.id) == nil)
    }

    @Test func signInCreatesOnceThenReusesTheUser() async throws {
        let db = try await TemporaryDatabase()
        let users = UserRepository(pool: db.pool)
        let tokens = TokenRepository(pool: db.pool, now: clock.closure)
        let first = try await users.signIn(.fixture(at: clock.now), token: .fixture(userID: UUID(), hash: 1, at: clock.now))
        #expect(first.created && first.token?.userID == first.user.id)
        let second = try await users.signIn(.fixture(at: clock.now), token: .fixture(userID: UUID(), hash: 2, at: clock.now))
        #expect(!second.created && second.user == first.user)
        #expect(try await tokens.findUser(.fixture(2)) == first.user)
    }

    @Test func concurrentFirstSignInsShareOneUser() async throws {
        let db = try await TemporaryDatabase()
        let users = UserRepository(pool: db.pool)
        let now = clock.now
        let results = try await withThrowingTaskGroup(of: UserRepository.SignIn.self) { group in
            for index in 0..<20 {
                group.addTask {
                    try await users.signIn(.fixture(at: now), token: .fixture(userID: UUID(), hash: UInt8(index), at: now))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(results.map(\.user.id)).count == 1)
        #expect(results.filter(\.created).count == 1)
    }

    @Test func deleteRemovesTokensSessionsAndAppleTokensAndQueuesRevocations() async throws {
        let db = try await TemporaryDatabase()
        let users = UserRepository(pool: db.pool)
        let tokens = TokenRepository(pool: db.pool, now: clock.closure)
        let sessions = DatabaseSessionStore(pool: db.pool, now: clock.closure)
        let appleTokens = AppleTokenRepository(pool: db.pool)
        let pending = PendingRevocationRepository(pool: db.pool)
        let user = User.fixture(at: clock.now)
        let keep = User.fixture(sub: "keep", email: "k@example.com", at: clock.now)
        try await users.createUserAndToken(user, token: .fixture(userID: user.id, hash: 1, at: clock.now))
        try await users.createUserAndToken(keep, token: .fixture(userID: keep.id, hash: 2, at: clock.now))
        let expires = clock.now.addingTimeInterval(3600)
        try await sessions.save(id: "s1", record: SessionRecord(data: ["userID": user.id.uuidString], expiresAt: expires))
        try await sessions.save(id: "s2", record: SessionRecord(data: ["userID": keep.id.uuidString], expiresAt: expires))
        let appleToken = AppleToken(userID: user.id, clientID: "com.example", encryptedRefreshToken: [1, 2], createdAt: clock.now)
        try await appleTokens.add(appleToken)
        let revocation = PendingRevocation(retrying: appleToken, createdAt: clock.now, lastError: "timeout")

        let deletion = try await users.delete(id: user.id, queueing: [revocation], besides: [appleToken.id])
        #expect(deletion == .init(deleted: true, bearerTokens: 1, sessions: 1, queuedUnsent: 0))

        #expect(try await users.find(id: user.id) == nil)
        #expect(try await tokens.findUser(.fixture(1)) == nil)
        #expect(try await sessions.load(id: "s1") == nil)
        #expect(try await appleTokens.list(userID: user.id).isEmpty)
        #expect(try await pending.list(limit: 10) == [revocation])
        #expect(try await tokens.findUser(.fixture(2)) == keep)
        #expect(try await sessions.load(id: "s2") != nil)
        #expect(try await users.delete(id: user.id).deleted == false)
    }

    /// An Apple token the caller did not send to Apple (a sign-in stored it while the revocations ran) is queued by
    /// the deletion under its own id, its sealed value as stored; one Apple refused already is not.
    @Test func deleteQueuesTheAppleTokensStoredAfterTheRevocationsWereSent() async throws {
        let db = try await TemporaryDatabase()
        let users = UserRepository(pool: db.pool, now: clock.closure)
        let appleTokens = AppleTokenRepository(pool: db.pool)
        let user = User.fixture(at: clock.now)
        try await users.createUserAndToken(user, token: .fixture(userID: user.id, hash: 1, at: clock.now))
        let sent = AppleToken(userID: user.id, clientID: "com.example", encryptedRefreshToken: [1], createdAt: clock.now)
        let refused = AppleToken(userID: user.id, clientID: "com.example.web", encryptedRefreshToken: [2],
                                 createdAt: clock.now)
        let storedMeanwhile = AppleToken(userID: user.id, clientID: "com.example.clip", encryptedRefreshToken: [3, 4],
                                         createdAt: clock.now)
        for token in [sent, refused, storedMeanwhile] { try await appleTokens.add(token) }
        #expect(try await appleTokens.markRevoked(id: refused.id, at: clock.now))

        let deletion = try await users.delete(id: user.id, besides: [sent.id])

        #expect(deletion == .init(deleted: true, bearerTokens: 1, sessions: 0, queuedUnsent: 1))
        let queued = try await PendingRevocationRepository(pool: db.pool).list(limit: 10)
        #expect(queued == [PendingRevocation(id: storedMeanwhile.id, clientID: "com.example.clip", encryptedToken: [3, 4],
                                             attempts: 0, lastError: UserRepository.storedDuringDeletion,
                                             createdAt: clock.now)])
        #expect(try await appleTokens.list(userID: user.id).isEmpty)
    }
}
