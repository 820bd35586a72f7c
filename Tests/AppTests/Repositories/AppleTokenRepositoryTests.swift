import Foundation
import Storage
import Testing
@testable import App

struct AppleTokenRepositoryTests {
    let clock = TestClock()

    @Test func addsListsMarksRevokedAndDeletes() async throws {
        let db = try await TemporaryDatabase()
        let user = User.fixture(at: clock.now)
        try await UserRepository(pool: db.pool).create(user)
        let repository = AppleTokenRepository(pool: db.pool)
        let first = AppleToken(userID: user.id, clientID: "com.example.ios", encryptedRefreshToken: [1, 2, 3], createdAt: clock.now)
        let second = AppleToken(userID: user.id, clientID: "com.example.web", encryptedRefreshToken: [4],
                                createdAt: clock.now.addingTimeInterval(1))
        try await repository.add(first)
        try await repository.add(second)
        #expect(try await repository.list(userID: user.id) == [first, second])
        #expect(try await repository.markRevoked(id: first.id, at: clock.now))
        #expect(try await repository.list(userID: user.id).first?.revokedAt == clock.now)
        #expect(try await repository.markRevoked(id: UUID(), at: clock.now) == false)
        #expect(try await repository.delete(id: second.id))
        #expect(try await repository.delete(id: second.id) == false)
        #expect(try await repository.list(userID: user.id).map(\.id) == [first.id])
        #expect(try await repository.list(userID: UUID()).isEmpty)
    }

    @Test func tokenForAMissingUserIsAForeignKeyViolation() async throws {
        let db = try await TemporaryDatabase()
        let repository = AppleTokenRepository(pool: db.pool)
        let error = try await #require(throws: SQLiteError.self) {
            try await repository.add(AppleToken(userID: UUID(), clientID: "c", encryptedRefreshToken: [1], createdAt: clock.now))
        }
        #expect(error.reason == .foreignKeyConstraint)
    }
}
