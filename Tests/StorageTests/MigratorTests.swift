import Foundation
import Testing
@testable import Storage

struct MigratorTests {
    struct Failure: Error {}

    let directory: TemporaryDirectory
    let database: Database

    init() throws {
        directory = try TemporaryDirectory()
        database = try Database(path: directory.path())
    }

    private static func migrator(upTo last: Int = 3) -> Migrator {
        var migrator = Migrator()
        migrator.register(version: 1, name: "create a") { try $0.executeScript("CREATE TABLE a (x INTEGER)") }
        guard last >= 2 else { return migrator }
        migrator.register(version: 2, name: "create b") { try $0.executeScript("CREATE TABLE b (y INTEGER)") }
        guard last >= 3 else { return migrator }
        migrator.register(version: 3, name: "add a.z") { try $0.executeScript("ALTER TABLE a ADD COLUMN z TEXT") }
        return migrator
    }

    private func tables() throws -> [String] {
        try database.fetchAll(sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") { try $0[0] }
    }

    @Test func migratesAnEmptyDatabase() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(try Self.migrator().migrate(database, now: now) == [1, 2, 3])
        #expect(try tables() == ["a", "b", "schema_migrations"])
        let applied = try Self.migrator().appliedMigrations(database)
        #expect(applied.map(\.version) == [1, 2, 3])
        #expect(applied.map(\.name) == ["create a", "create b", "add a.z"])
        #expect(applied.allSatisfy { $0.appliedAt == now })
    }

    @Test func migratesFromAPreviousSchema() throws {
        #expect(try Self.migrator().migrate(database, upTo: 1) == [1])
        try database.execute(sql: "INSERT INTO a (x) VALUES (?)", arguments: [7])
        #expect(try Self.migrator().migrate(database) == [2, 3])
        #expect(try database.fetchOne(sql: "SELECT x, z FROM a") { (try $0[0] as Int, try $0[1] as String?) }! == (7, nil))
    }

    @Test func secondRunAppliesNothing() throws {
        try Self.migrator().migrate(database)
        #expect(try Self.migrator().migrate(database) == [])
    }

    @Test func refusesADatabaseFromANewerBuild() throws {
        try Self.migrator(upTo: 3).migrate(database)
        let error = try #require(throws: MigrationError.self) { try Self.migrator(upTo: 2).migrate(database) }
        #expect(error.reason == .databaseIsNewer(unknown: [3]))
        #expect(error.description.contains("newer version of siwa"))
        #expect(error.description.contains(database.path))
    }

    @Test func failedMigrationIsRolledBackAndNotRecorded() throws {
        var migrator = Self.migrator(upTo: 1)
        migrator.register(version: 2, name: "half done") { db in
            try db.executeScript("CREATE TABLE b (y INTEGER)")
            throw Failure()
        }
        #expect(throws: Failure.self) { try migrator.migrate(database) }
        #expect(try tables() == ["a", "schema_migrations"])
        #expect(try migrator.appliedMigrations(database).map(\.version) == [1])
    }

    @Test func migratesThroughThePool() async throws {
        let pool = try DatabasePool(path: directory.path("pool.sqlite"))
        #expect(try await Self.migrator().migrate(pool) == [1, 2, 3])
        let count = try await pool.read { try $0.fetchOne(sql: "SELECT count(*) FROM schema_migrations") { try $0[0] as Int } }
        #expect(count == 3)
    }
}
