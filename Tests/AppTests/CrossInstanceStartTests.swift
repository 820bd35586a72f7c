import Foundation
import Glibc
import HTTPCore
import Storage
import TestSupport
import Testing
@testable import App

/// N real `siwa serve` processes started at the same moment on an empty PostgreSQL database: the advisory lock
/// lets one of them apply each migration and the others find it applied, and every instance comes up ready.
@Suite(.postgres, .serialized, .timeLimit(.minutes(3)))
struct CrossInstanceStartTests {
    /// Instances started together.
    static let instances = 4

    @Test func instancesStartedTogetherOnAnEmptyDatabaseMigrateOnceAndAllComeUp() async throws {
        let url = try await PostgresCluster.sharedCluster().newDatabase()
        try await SpawnedApp.with { app in
            let environment = app.environment(["DATABASE_URL": url])
            let servers = try (0..<Self.instances).map { _ in
                try SiwaProcess(["serve"], environment: environment, directory: app.directory)
            }
            defer { for server in servers { server.signal(SIGTERM) } }
            for (index, server) in servers.enumerated() {
                let port = try await server.waitForPort()
                let ready = try await app.client.send(HTTPClientRequest(url: "http://127.0.0.1:\(port)/ready"))
                #expect(ready.status == .ok, "instance \(index): \(server.output.suffix(1000))")
            }

            let pool = try PostgresPool(url: try PostgresURL(url), size: 1)
            let versions = try await pool.read(SQL("SELECT version FROM schema_migrations ORDER BY version")) {
                try $0[0] as Int
            }
            let known = AppMigrations.migrator.migrations.map(\.version)
            #expect(versions == known, "each version recorded exactly once")
            let appliedBy = servers.map { Self.versionsApplied(in: $0.output) }
            #expect(appliedBy.flatMap { $0 }.sorted() == known, "each version applied by one instance: \(appliedBy)")

            let before = try await Self.migrationRows(pool)
            let migrate = try await SiwaProcess.run(["migrate"], environment: environment, directory: app.directory)
            #expect(migrate.status == 0, "\(migrate.output)")
            #expect(try await Self.migrationRows(pool) == before, "siwa migrate afterwards changes nothing")
            for server in servers { server.signal(SIGTERM) }
            for (index, server) in servers.enumerated() { #expect(await server.terminate() == 0, "instance \(index)") }
        }
    }

    /// The versions an instance's start-up line says it applied (`PostgreSQL … migrated versions=[1, 2]`).
    static func versionsApplied(in output: String) -> [Int] {
        guard let line = output.split(separator: "\n").first(where: { $0.contains(" migrated") }),
              let open = line.range(of: "versions=["),
              let close = line[open.upperBound...].firstIndex(of: "]") else { return [] }
        return line[open.upperBound..<close].split(separator: ",")
            .compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// Every row of `schema_migrations`, as text, to compare before and after.
    static func migrationRows(_ pool: PostgresPool) async throws -> [String] {
        try await pool.read(SQL("SELECT version, name, applied_at FROM schema_migrations ORDER BY version")) { row in
            "\(try row[0] as Int) \(try row[1] as String) \(try row[2] as Date)"
        }
    }
}
