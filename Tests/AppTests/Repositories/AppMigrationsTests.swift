import Foundation
import Storage
import Testing
@testable import App

struct AppMigrationsTests {
    @Test func migratesFromEmptyToTheLatestSchema() async throws {
        let db = try await TemporaryDatabase()
        let tables = try await db.pool.read {
            try $0.fetchAll(sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") { try $0[0] as String }
        }
        #expect(tables == [
            "apple_notifications", "apple_tokens", "jwks_cache", "pending_revocations", "schema_migrations",
            "sessions", "siwa_states", "tokens", "users",
        ])
        let versions = try await db.pool.read { try AppMigrations.migrator.appliedMigrations($0).map(\.version) }
        #expect(versions == AppMigrations.migrator.migrations.map(\.version))
    }

    @Test func upgradesAVersionOneDatabaseKeepingItsData() async throws {
        let db = try await TemporaryDatabase(migratedTo: 1)
        let clock = TestClock()
        let user = User.fixture(at: clock.now)
        try await UserRepository(pool: db.pool).createUserAndToken(user, token: .fixture(userID: user.id, at: clock.now))
        #expect(try await AppMigrations.migrator.migrate(db.pool) == [2, 3, 4, 5])
        #expect(try await TokenRepository(pool: db.pool, now: clock.closure).findUser(valueHash: [UInt8](repeating: 1, count: 32)) == user)
        try await AppleTokenRepository(pool: db.pool)
            .add(AppleToken(userID: user.id, clientID: "c", encryptedRefreshToken: [1], createdAt: clock.now))
    }

    @Test func refusesToOpenADatabaseFromANewerBuild() async throws {
        let db = try await TemporaryDatabase()
        try await db.pool.write {
            try $0.execute(sql: "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                           arguments: [99, "from the future", Date()])
        }
        let error = try await #require(throws: MigrationError.self) {
            _ = try await AppMigrations.openAndMigrate(path: db.path)
        }
        #expect(error.reason == .databaseIsNewer(unknown: [99]))
    }

    @Test func openAndMigrateIsIdempotent() async throws {
        let db = try await TemporaryDatabase()
        let pool = try await AppMigrations.openAndMigrate(path: db.path)
        #expect(try await AppMigrations.migrator.migrate(pool) == [])
    }
}
