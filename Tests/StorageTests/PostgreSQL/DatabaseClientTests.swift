import Foundation
import Testing
import TestSupport
@testable import Storage

/// The one interface over both engines: the same statements give the same results and the same errors on SQLite
/// and on PostgreSQL.
@Suite(.postgres, .timeLimit(.minutes(2)))
struct DatabaseClientTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    private func client(_ engine: DatabaseEngine) async throws -> any DatabaseClient {
        let client: any DatabaseClient = switch engine {
        case .sqlite: try DatabasePool(path: directory.path())
        case .postgres: try PostgresPool(url: try PostgresURL(try await PostgresCluster.sharedCluster().newDatabase()), size: 2,
                                         connectTimeout: .seconds(5 * Sanitizer.timeScale))
        }
        let types = engine == .postgres ? ("uuid", "timestamptz") : ("TEXT", "INTEGER")
        try await client.write(SQL("""
            CREATE TABLE people (id \(types.0) PRIMARY KEY, name TEXT NOT NULL UNIQUE, admin BOOLEAN NOT NULL,
                                 seen \(types.1) NOT NULL, visits BIGINT NOT NULL)
            """))
        return client
    }

    @Test(arguments: [DatabaseEngine.sqlite, .postgres])
    func writesReturnRowsAndChangesAlike(_ engine: DatabaseEngine) async throws {
        let db = try await client(engine)
        let (ann, bob) = (UUID(), UUID())
        let seen = Date(timeIntervalSince1970: 1_700_000_000.25)
        let upsert = "INSERT INTO people (id, name, admin, seen, visits) VALUES (?, ?, ?, ?, 1) "
            + "ON CONFLICT (name) DO UPDATE SET visits = people.visits + 1 RETURNING id, visits"
        let results = try await db.write([
            SQL(upsert, [ann, "ann", true, seen]),
            SQL(upsert, [bob, "bob", false, seen]),
            SQL(upsert, [UUID(), "ann", false, seen]),
            SQL("UPDATE people SET admin = ? WHERE admin = ?", [true, false]),
            SQL("SELECT count(*) FROM people"),
        ])
        let again = try #require(try results[2].first { (try $0["id"] as UUID, try $0["visits"] as Int) })
        #expect(again.0 == ann && again.1 == 2)
        #expect(results[3].changes == 1 && results[3].count == 0)
        let count = try results[4].first { try $0[0] as Int }
        #expect(results[4].changes == 0 && count == 2)
        let people = try await db.read(SQL("SELECT id, admin, seen FROM people ORDER BY name")) { row in
            (try row[0] as UUID, try row[1] as Bool, try row[2] as Date)
        }
        #expect(people.map(\.0) == [ann, bob] && people.allSatisfy { $0.1 && abs($0.2.timeIntervalSince(seen)) < 0.001 })
    }

    @Test(arguments: [DatabaseEngine.sqlite, .postgres])
    func aFailingStatementRollsTheWholeWriteBackAndNamesItself(_ engine: DatabaseEngine) async throws {
        let db = try await client(engine)
        let insert = "INSERT INTO people (id, name, admin, seen, visits) VALUES (?, ?, false, ?, 0)"
        try await db.write(SQL(insert, [UUID(), "ann", Date()]))
        await #expect(throws: (any Error).self) {
            try await db.write([SQL(insert, [UUID(), "cy", Date()]), SQL(insert, [UUID(), "ann", Date()])])
        }
        do {
            try await db.write([SQL(insert, [UUID(), "dee", Date()]), SQL(insert, [UUID(), "ann", Date()])])
        } catch let failure as any DatabaseFailure {
            #expect(failure.failureKind == .uniqueConstraint && failure.statementIndex == 1)
        }
        let names = try await db.read(SQL("SELECT name FROM people ORDER BY name")) { try $0[0] as String }
        #expect(names == ["ann"])
    }

    @Test(arguments: [DatabaseEngine.sqlite, .postgres])
    func aRowReadAsTheWrongTypeOrByAMissingNameIsTheSameErrorOnBothEngines(_ engine: DatabaseEngine) async throws {
        let db = try await client(engine)
        try await db.write(SQL("INSERT INTO people (id, name, admin, seen, visits) VALUES (?, 'ann', false, ?, 0)",
                               [UUID(), Date()]))
        let mismatch = await #expect(throws: RowDecodingError.self) {
            _ = try await db.read(SQL("SELECT name FROM people")) { try $0[0] as Int }
        }
        #expect(mismatch?.message == "column 0 cannot be read as Int")
        #expect(mismatch.map { "\($0)" }?.hasPrefix("cannot read a database row: column 0 cannot be read as Int") == true)
        #expect(mismatch.map { "\($0)" }?.contains("SQLite") == false, "no engine named in a row's error")
        let missing = await #expect(throws: RowDecodingError.self) {
            _ = try await db.read(SQL("SELECT name FROM people")) { try $0["nickname"] as String }
        }
        #expect(missing?.message == "no column named nickname")
    }
}
