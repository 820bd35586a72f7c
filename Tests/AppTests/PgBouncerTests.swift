import Foundation
import HTTPCore
import Storage
import TestSupport
import Testing
@testable import App

/// Behind Debian's PgBouncer in transaction mode, with fewer server connections than the instance's pool:
/// `DATABASE_PREPARED_STATEMENTS=off` makes sign-ins, the web flow, `/ready` and the operators' commands work; left
/// on, the server answers 503 (never a 500, never another statement's data), its log names the setting, and `/ready`
/// answers 503 from the first such failure on.
@Suite(.postgres, .serialized, .timeLimit(.minutes(2)))
struct PgBouncerTests {
    static let concurrentSignIns = 24

    private func signIns(_ app: TestApp, tag: String) async throws -> [Int] {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<Self.concurrentSignIns {
                group.addTask {
                    let subject = "001.\(tag).\(index)"
                    return try await app.sendJSON(.POST, "/api/users/siwa", [
                        "token": try app.identityToken(subject: subject, email: "\(subject)@example.com"),
                    ]).status.code
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    /// An app on a new database behind PgBouncer in transaction mode, with 2 server connections against the app's 6
    /// and `DATABASE_PREPARED_STATEMENTS=off`.
    private func withUnnamedStatementsBehindPgBouncer(_ body: (TestApp) async throws -> Void) async throws {
        let cluster = try await PostgresCluster.sharedCluster()
        let database = String(try await cluster.newDatabase().split(separator: "/").last ?? "")
        try await PgBouncer.with(in: cluster, poolSize: 2) { bouncer in
            try await TestApp.with(configure: { configuration in
                configuration.databaseURL = try? PostgresURL(bouncer.url(database: database))
                configuration.databasePoolSize = 6
                configuration.databasePreparedStatements = false
            }, body)
        }
    }

    /// An app on a new database behind PgBouncer in transaction mode, with 3 server connections against the app's 6
    /// and prepared statements left on, logging to `log`.
    private func withPreparedStatementsBehindPgBouncer(log: LogCapture, _ body: (TestApp) async throws -> Void)
        async throws
    {
        let cluster = try await PostgresCluster.sharedCluster()
        let database = String(try await cluster.newDatabase().split(separator: "/").last ?? "")
        try await PgBouncer.with(in: cluster, poolSize: 3) { bouncer in
            try await TestApp.with(logger: log.logger(), configure: { configuration in
                configuration.databaseURL = try? PostgresURL(bouncer.url(database: database))
                configuration.databasePoolSize = 6
            }, body)
        }
    }

    @Test func unnamedStatementsWorkThroughTransactionPooling() async throws {
        try await withUnnamedStatementsBehindPgBouncer { app in
            #expect(try await signIns(app, tag: "pgb") == [Int](repeating: 200, count: Self.concurrentSignIns))
            #expect(try await app.count("users") == Self.concurrentSignIns)
            #expect(try await app.send(.GET, "/ready").status == .ok)
            let state = try TestApp.newState()
            let web = try await app.handle([("token", try app.webToken(state: state, subject: "001.pgb.web"))], state: state)
            #expect(web.status == .seeOther, "the web flow")
        }
    }

    @Test func operatorsCommandsWorkThroughTransactionPooling() async throws {
        try await withUnnamedStatementsBehindPgBouncer { app in
            let signedIn = try await app.signInWithAuthorizationCode(subject: "001.pgb.op", email: "op@example.com")
            #expect(signedIn.status == .ok, "\(signedIn.text)")
            let id = try #require((try signedIn.json()["user"] as? [String: Any])?["id"] as? String)
            try await app.seedAppleTokens(20, tag: "pgbop")

            let migrate = try await app.command(["migrate"])
            #expect(migrate.status == 0, "\(migrate.output)")
            let show = try await app.command(["users", "show", "001.pgb.op"])
            #expect(show.status == 0, "\(show.output)")
            #expect(try show.json()["id"] as? String == id)
            let export = try await app.command(["users", "export", id])
            #expect(export.status == 0, "\(export.output)")
            try await app.makeAppleTokensDue()
            let validate = try await app.command(["apple", "validate-tokens"])
            #expect(validate.status == 0, "\(validate.output)")
            #expect(validate.output.hasPrefix("validate-tokens: 21 due, 21 valid"), "\(validate.output)")
            let delete = try await app.command(["users", "delete", id, "--yes"])
            #expect(delete.status == 0, "\(delete.output)")
            let retry = try await app.command(["apple", "retry-revocations"])
            #expect(retry.status == 0, "\(retry.output)")
            #expect(try await app.count("users") == 20)
            #expect(await app.apple.revocations().count == 1, "the deleted user's token was revoked at Apple")
        }
    }

    @Test func preparedStatementsBehindTransactionPoolingAre503AndNamed() async throws {
        let log = LogCapture()
        try await withPreparedStatementsBehindPgBouncer(log: log) { app in
            var statuses: [Int] = []
            for round in 0..<5 where !statuses.contains(503) {
                statuses += try await signIns(app, tag: "prep\(round)")
            }
            #expect(statuses.allSatisfy { $0 == 200 || $0 == 503 }, "never a 500: \(Set(statuses))")
            #expect(statuses.contains(503))
            let ready = try await app.send(.GET, "/ready")
            #expect(ready.status == .serviceUnavailable, "a balancer takes the instance out: \(ready.text)")
            #expect(log.contains("DATABASE_PREPARED_STATEMENTS=off"), "\(log.all.suffix(3))")
        }
    }

    /// A balancer that has taken the instance out polls only `/ready`: its log line names the setting too, and the
    /// answer stays 503. Found by a black-box review: the line said only that the database took no writes, and one
    /// `/ready` answered 200 after the first 503.
    @Test func readyAloneNamesTheSettingBehindTransactionPooling() async throws {
        let log = LogCapture()
        try await withPreparedStatementsBehindPgBouncer(log: log) { app in
            var turned = false
            for _ in 0..<40 where !turned {
                let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<6 { group.addTask { try await app.send(.GET, "/ready").status.code } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                turned = statuses.contains(503)
            }
            try #require(turned, "six /ready at once moved a prepared statement within 40 rounds")
            for _ in 0..<10 { #expect(try await app.send(.GET, "/ready").status == .serviceUnavailable) }
            #expect(log.contains("/ready: 503 from now on", "DATABASE_PREPARED_STATEMENTS=off"), "\(log.text)")
            #expect(!log.contains("/ready: the database answers again"))
        }
    }

    /// With `DATABASE_PREPARED_STATEMENTS=off`, nothing the binary runs prepares a named statement: the server, its
    /// read-only probe, `siwa migrate` and the operators' commands. Found by an audit: `siwa apple transfer
    /// export|import`, `users`, `doctor` and `migrate` ignored the setting, and behind PgBouncer a transfer failed
    /// with `prepared statement "siwa_…" does not exist`. On a cluster of its own, whose log shows every statement.
    @Test func nothingPreparesANamedStatementWhenToldNotTo() async throws {
        let cluster = try await PostgresCluster.started()
        defer { cluster.stop() }
        let url = try PostgresURL(try cluster.createDatabase())
        _ = try cluster.query("ALTER SYSTEM SET log_statement = 'all'")
        _ = try cluster.query("SELECT pg_reload_conf()")
        try await TestApp.with(configure: { configuration in
            configuration.databaseURL = url
            configuration.databasePreparedStatements = false
        }) { app in
            let signedIn = try await app.signInWithAuthorizationCode(subject: "001.unnamed", email: "u@example.com")
            let id = try #require((try signedIn.json()["user"] as? [String: Any])?["id"] as? String)
            for arguments in [["migrate"], ["doctor"], ["users", "show", id], ["users", "export", id],
                              ["apple", "transfer", "status"], ["apple", "validate-tokens"]] {
                let run = try await app.command(arguments)
                #expect(run.status == 0 || arguments == ["doctor"], "\(arguments): \(run.output)")
            }
        }
        let log = try String(contentsOfFile: cluster.directory + "/server.log", encoding: .utf8)
        let named = log.split(separator: "\n").filter { $0.contains("execute siwa_") || $0.contains("prepare siwa_") }
        #expect(log.contains("execute <unnamed>"), "the log shows the statements")
        #expect(named.isEmpty, "\(named.prefix(3))")
    }
}
