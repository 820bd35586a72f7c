import Foundation
import HTTPCore
import Storage
import TestSupport
import Testing
@testable import App

/// `siwa apple validate-tokens|retry-revocations` run as the operator runs them, beside a running server.
@Suite(.timeLimit(.minutes(2)))
struct AppleCommandTests {
    @Test func choresPrintTheirReportAndExitZero() async throws {
        try await TestApp.with { app in
            let response = try await app.signInWithAuthorizationCode(subject: "001.chore", email: "chore@example.com")
            #expect(response.status == .ok, "\(response.text)")

            try await app.makeAppleTokensDue()
            let validate = try await app.command(["apple", "validate-tokens"])
            #expect(validate.status == 0, "\(validate.output)")
            #expect(validate.lines.count == 1)
            #expect(validate.output.hasPrefix("validate-tokens: 1 due, 1 valid, 0 revoked, 0 throttled and retried, "
                                              + "0 failed, 0 interrupted, in "), "\(validate.output)")
            let retry = try await app.command(["apple", "retry-revocations"])
            #expect(retry.status == 0, "\(retry.output)")
            #expect(retry.output.hasPrefix("retry-revocations: 0 due, 0 revoked, 0 throttled and retried, 0 failed, "
                                           + "0 interrupted, in "), "\(retry.output)")
        }
    }

    /// At the default `LOG_LEVEL`, with the refresh-token key in its file beside the database, cron still mails one
    /// line: where the key is kept is the server's to say at its start. Found by an audit.
    @Test(.sqliteOnly) func aChoreSaysNothingButItsSummaryAtTheDefaultLogLevel() async throws {
        try await TestApp.with(configure: { $0.encryptionKey = nil }) { app in
            let response = try await app.signInWithAuthorizationCode(subject: "001.quiet", email: "quiet@example.com")
            #expect(response.status == .ok, "\(response.text)")
            let validate = try await app.command(["apple", "validate-tokens"], ["LOG_LEVEL": "info"])
            #expect(validate.status == 0, "\(validate.output)")
            #expect(validate.lines.count == 1, "\(validate.output)")
        }
    }

    /// Without the Apple key a chore says so in one line and exits 1, before it opens the database: run in the
    /// wrong folder, it leaves no new database file behind.
    @Test(.sqliteOnly) func withoutTheAppleKeyAChoreIsOneLineAndCreatesNoDatabase() async throws {
        try await TestApp.with(lifecycle: false) { app in
            let missing = app.directory.appendingPathComponent("elsewhere.sqlite").path
            for chore in ["validate-tokens", "retry-revocations"] {
                let result = try await app.command(["apple", chore], ["DATABASE_PATH": missing])
                #expect(result.status == 1)
                #expect(result.lines == ["siwa: Apple token lifecycle is not configured: APPLE_TEAM_ID, APPLE_KEY_ID "
                                         + "and APPLE_PRIVATE_KEY_PATH are not set"], "\(result.output)")
                #expect(!FileManager.default.fileExists(atPath: missing))
            }
        }
    }

    /// A `DATABASE_PATH` that names no database (in a folder that exists, or one that does not) stops a chore with
    /// the line every operator's command gives, exit 1, and nothing created: no database, no refresh-token key.
    @Test(.sqliteOnly) func withoutADatabaseAChoreIsOneLineAndCreatesNothing() async throws {
        try await TestApp.with { app in
            var environment = app.operatorEnvironment
            environment["SIWA_ENCRYPTION_KEY"] = nil
            let paths = [app.directory.appendingPathComponent("elsewhere.sqlite").path,
                         app.directory.appendingPathComponent("no/such/folder/siwa.sqlite").path]
            for chore in ["validate-tokens", "retry-revocations"] {
                for missing in paths {
                    environment["DATABASE_PATH"] = missing
                    let result = try await SiwaProcess.run(["apple", chore], environment: environment,
                                                           directory: app.directory)
                    #expect(result.status == 1, "\(chore): \(result.output)")
                    #expect(result.lines == ["siwa: DATABASE_PATH: no database at \(missing) "
                                             + "(start the server once or run `siwa migrate`)"], "\(result.output)")
                    #expect(!FileManager.default.fileExists(atPath: missing))
                    #expect(!FileManager.default.fileExists(
                        atPath: AppleTokenLifecycle.keyFilePath(databasePath: missing)))
                }
            }
            #expect(!FileManager.default.fileExists(atPath: app.directory.appendingPathComponent("no").path))
        }
    }

    /// On PostgreSQL, a `DATABASE_URL` naming a database without siwa's tables (mistyped, or never started) stops a
    /// chore the same way: one line, exit 1, and no table made there. Found by a black-box review: both chores
    /// migrated such a database and exited 0.
    @Test func anEmptyPostgreSQLDatabaseIsRefusedAndLeftEmpty() async throws {
        let cluster = try await PostgresCluster.sharedCluster()
        let url = try await cluster.newDatabase()
        let name = String(url.split(separator: "/").last ?? "")
        try await TestApp.with { app in
            for chore in ["validate-tokens", "retry-revocations"] {
                let result = try await app.command(["apple", chore], ["DATABASE_URL": url])
                #expect(result.status == 1, "\(chore): \(result.output)")
                #expect(result.lines == ["siwa: DATABASE_URL: 127.0.0.1:\(cluster.port)/\(name) has no siwa database "
                                         + "yet (start the server once or run `siwa migrate`); nothing was changed"],
                        "\(result.output)")
            }
        }
        let tables = try cluster.query("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'", database: name)
        #expect(tables.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }

    /// The chores and the transfer's writing commands close the database they opened, so a file no server has open
    /// is left one file, their writes in it, as `siwa migrate` leaves it. Found by reading them again after an
    /// audit found `migrate` leaving its writes in the `-wal`.
    @Test(.sqliteOnly) func writingCommandsLeaveAClosedFileAsOneFile() async throws {
        try await TestApp.with { app in
            let response = try await app.signInWithAuthorizationCode(subject: "001.onefile", email: "one@example.com")
            #expect(response.status == .ok, "\(response.text)")
            try await app.makeAppleTokensDue()
            let folder = app.directory.appendingPathComponent("copy")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            let copy = folder.appendingPathComponent("siwa.sqlite").path
            let backup = try await app.command(["backup", copy])
            #expect(backup.status == 0, "\(backup.output)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["siwa.sqlite"])
            for arguments in [["apple", "validate-tokens"], ["apple", "retry-revocations"],
                              ["apple", "transfer", "export", "--to", TestApp.receivingTeamID],
                              ["apple", "transfer", "import"]] {
                let result = try await app.command(arguments, ["DATABASE_PATH": copy])
                #expect(result.status == 0, "\(arguments): \(result.output)")
                #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["siwa.sqlite"],
                        "\(arguments)")
            }
            let checked = try Database(inspecting: copy).fetchOne(
                sql: "SELECT count(*) FROM apple_tokens WHERE checked_at IS NOT NULL") { try $0[0] as Int }
            #expect(checked == 1, "validate-tokens' answer is in the file alone")
        }
    }

    @Test func badUsageExitsTwo() async throws {
        try await TestApp.with { app in
            let result = try await app.command(["apple", "validate-tokens", "--no-such-option"])
            #expect(result.status == 2, "\(result.output)")
            #expect(result.output.contains("--no-such-option"), "\(result.output)")
        }
    }

    @Test func aConfigurationTheServerWouldRefuseIsOneLine() async throws {
        try await TestApp.with { app in
            let result = try await app.command(["apple", "validate-tokens"], ["PORT": "eighty"])
            #expect(result.status == 1)
            #expect(result.lines.count == 1, "\(result.output)")
            #expect(result.output.hasPrefix("siwa: the server is not configured: Environment variable PORT"))
        }
    }
}
