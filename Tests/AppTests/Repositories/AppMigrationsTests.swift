import CryptoCore
import Foundation
import JSON
import Storage
import TestSupport
import Testing
@testable import App

struct AppMigrationsTests {
    @Test func migratesFromEmptyToTheLatestSchema() async throws {
        let db = try await TemporaryDatabase()
        let tables = try await db.pool.read {
            try $0.fetchAll(sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") { try $0[0] as String }
        }
        #expect(tables == [
            "apple_notifications", "apple_tokens", "chore_leases", "held_apple_notifications", "jwks_cache",
            "pending_revocations", "schema_migrations", "sessions", "shared_settings", "tokens", "used_nonces", "users",
        ])
        let versions = try await db.pool.read { try AppMigrations.migrator.appliedMigrations($0).map(\.version) }
        #expect(versions == AppMigrations.migrator.migrations.map(\.version))
    }

    @Test func upgradesAVersionOneDatabaseKeepingItsData() async throws {
        let db = try await TemporaryDatabase(migratedTo: 1)
        let clock = TestClock()
        let user = User.fixture(at: clock.now)
        let legacy = Base64URL.encode([UInt8](repeating: 1, count: 32))
        let token = BearerToken(userID: user.id, valueHash: SHA256.hash(legacy), createdAt: clock.now,
                                expiresAt: clock.now + 3600)
        try await UserRepository(pool: db.pool).createUserAndToken(user, token: token)
        #expect(try await AppMigrations.migrator.migrate(db.pool) == Array(2...19))
        #expect(try await TokenRepository(pool: db.pool, now: clock.closure).findUser(BearerTokenValue(legacy)) == user)
        try await AppleTokenRepository(pool: db.pool)
            .add(AppleToken(userID: user.id, clientID: "c", encryptedRefreshToken: [1], createdAt: clock.now))
    }

    /// Version 14 keeps the newest Apple token of each user and client id (by `created_at`, then `id`), and no other.
    @Test func versionFourteenKeepsTheNewestAppleTokenOfEachClient() async throws {
        let db = try await TemporaryDatabase(migratedTo: 13)
        let clock = TestClock()
        let ann = User.fixture(sub: "001.ann", email: "ann@example.com", at: clock.now)
        let bob = User.fixture(sub: "001.bob", email: "bob@example.com", at: clock.now)
        for user in [ann, bob] { try await UserRepository(pool: db.pool).create(user) }
        let tokens = AppleTokenRepository(pool: db.pool)
        func add(_ user: User, _ clientID: String, secondsAgo: Double, id: UUID = UUID()) async throws -> UUID {
            try await tokens.add(AppleToken(id: id, userID: user.id, clientID: clientID, encryptedRefreshToken: [1],
                                            createdAt: clock.now - secondsAgo))
            return id
        }
        _ = try await add(ann, "app", secondsAgo: 300)
        let annApp = try await add(ann, "app", secondsAgo: 100)
        _ = try await add(ann, "app", secondsAgo: 200)
        let annWeb = try await add(ann, "web", secondsAgo: 400)
        let tie = [UUID(), UUID()].sorted { $0.uuidString < $1.uuidString }
        for id in tie { _ = try await add(bob, "app", secondsAgo: 50, id: id) }
        #expect(try await AppMigrations.migrator.migrate(db.pool) == [14, 15, 16, 17, 18, 19])
        let kept = Set(try await db.pool.read { try $0.fetchAll(sql: "SELECT id FROM apple_tokens") { try $0[0] as UUID } })
        #expect(kept == [annApp, annWeb, tie[1]])
    }

    @Test func versionSixKeepsEarlierTokensWorkingByTheirHashAndIndexesNewOnesByIdOnly() async throws {
        let db = try await TemporaryDatabase(migratedTo: 5)
        let clock = TestClock()
        let user = User.fixture(at: clock.now)
        let legacy = Base64URL.encode([UInt8](repeating: 4, count: 32))
        let legacyID = UUID.timeOrdered(now: clock.now)
        try await UserRepository(pool: db.pool).createUserAndToken(user, token: BearerToken(
            id: legacyID, userID: user.id, valueHash: SHA256.hash(legacy), createdAt: clock.now,
            expiresAt: clock.now + 3600))
        #expect(try await AppMigrations.migrator.migrate(db.pool) == Array(6...19))

        let tokens = TokenRepository(pool: db.pool, now: clock.closure)
        let found = try #require(try await tokens.find(BearerTokenValue(legacy)))
        #expect(found.user == user)
        #expect(found.tokenID.uuidString.lowercased().dropFirst(14).first == "8")
        #expect(found.tokenID.uuidString.lowercased().replacingCharacters(in: "xxxxxxxx-xxxx-".endIndex..<"xxxxxxxx-xxxx-8".endIndex, with: "7")
                == legacyID.uuidString.lowercased())
        try await tokens.create(.fixture(userID: user.id, hash: 5, at: clock.now))
        #expect(try await tokens.findUser(.fixture(5)) == user)
        #expect(try await tokens.delete(id: found.tokenID))
        #expect(try await tokens.findUser(BearerTokenValue(legacy)) == nil)

        let indexes = try await db.pool.read { db in
            try db.fetchAll(sql: "SELECT name, \"unique\", partial FROM pragma_index_list('tokens') ORDER BY name") {
                "\(try $0[0] as String) unique=\(try $0[1] as Int) partial=\(try $0[2] as Int)"
            }
        }
        #expect(indexes == [
            "sqlite_autoindex_tokens_1 unique=1 partial=0", "tokens_expires_at unique=0 partial=0",
            "tokens_legacy_value_hash unique=1 partial=1", "tokens_user_id unique=0 partial=0",
        ])
        let plan = try await db.pool.read { db in
            try db.fetchAll(sql: """
                EXPLAIN QUERY PLAN SELECT tokens.id FROM tokens JOIN users ON users.id = tokens.user_id
                WHERE tokens.value_hash = ? AND \(SQLiteSchema.isLegacyToken("tokens.id")) AND tokens.expires_at > ?
                """, arguments: [SHA256.hash(legacy), clock.now]) { try $0[3] as String }
        }
        #expect(plan.contains { $0.contains("tokens_legacy_value_hash") })
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

    /// The versions a start applies to a SQLite file are noted, as on PostgreSQL; a start that applies none says
    /// nothing. Found by an audit: an upgrade's migration 14 went unseen on SQLite.
    @Test func theVersionsAStartAppliesAreLogged() async throws {
        let db = try await TemporaryDatabase(migratedTo: 13)
        let log = LogCapture()
        let pool = try await AppMigrations.openAndMigrate(path: db.path, logger: log.logger())
        #expect(log.contains("notice", "SQLite \(db.path) migrated", "versions=[14, 15, 16, 17, 18, 19]"),
                "\(log.text)")
        await pool.close()
        _ = try await AppMigrations.openAndMigrate(path: db.path, logger: log.logger())
        #expect(log.all.count == 1, "\(log.text)")
    }
}
