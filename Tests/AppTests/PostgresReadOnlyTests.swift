import Foundation
import HTTPCore
import Storage
import TestSupport
import Testing
@testable import App

/// An instance whose database stops taking writes (a standby left in the URL, or a primary demoted by a failover):
/// sign-ins answer 503, never 500, `/ready` is 503 although the server answers queries, the log says the database
/// is read-only, and service comes back by itself once the database takes writes again.
@Suite(.postgres, .serialized, .timeLimit(.minutes(2)))
struct PostgresReadOnlyTests {
    /// Sets the database read-only (or back) for new sessions and ends the current ones, as a failover does.
    private func setReadOnly(_ on: Bool, database: String, admin: PostgresPool) async throws {
        try await admin.write(SQL("ALTER DATABASE \(database) SET default_transaction_read_only = \(on ? "on" : "off")"))
        try await admin.write(SQL("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ?", [database]))
    }

    @Test func aReadOnlyDatabaseIs503AndNotReadyUntilItTakesWritesAgain() async throws {
        let cluster = try await PostgresCluster.sharedCluster()
        let text = try await cluster.newDatabase()
        let database = String(text.split(separator: "/").last ?? "")
        let admin = try PostgresPool(url: try PostgresURL(cluster.url()), size: 1)
        let log = LogCapture()
        try await TestApp.with(logger: log.logger(), configure: { $0.databaseURL = try? PostgresURL(text) }) { app in
            #expect(try await app.send(.GET, "/ready").status == .ok)
            try await setReadOnly(true, database: database, admin: admin)
            var refused = try await app.sendJSON(.POST, "/api/users/siwa",
                                                 ["token": try app.identityToken(subject: "001.ro", email: "ro@example.com")])
            // The first request may meet a connection the failover ended: that is a 503 too.
            for _ in 0..<3 where refused.status == .serviceUnavailable && !log.contains("read-only") {
                refused = try await app.sendJSON(.POST, "/api/users/siwa",
                                                 ["token": try app.identityToken(subject: "001.ro", email: "ro@example.com")])
            }
            #expect(refused.status == .serviceUnavailable)
            #expect(refused.headers["Retry-After"] != nil)
            #expect(log.contains("read-only", "target_session_attrs=read-write"), "\(log.all.suffix(3))")
            let notReady = try await app.send(.GET, "/ready")
            #expect(notReady.status == .serviceUnavailable)
            #expect(try await app.send(.GET, "/health").status == .ok)

            try await setReadOnly(false, database: database, admin: admin)
            var accepted = try await app.sendJSON(.POST, "/api/users/siwa",
                                                  ["token": try app.identityToken(subject: "001.rw", email: "rw@example.com")])
            for _ in 0..<20 where accepted.status != .ok {
                try await Task.sleep(for: .milliseconds(100))
                accepted = try await app.sendJSON(.POST, "/api/users/siwa",
                                                  ["token": try app.identityToken(subject: "001.rw", email: "rw@example.com")])
            }
            #expect(accepted.status == .ok)
            #expect(try await app.send(.GET, "/ready").status == .ok)
        }
    }

    /// With `synchronous_standby_names` set and no standby attached, commits wait for ever while reads answer:
    /// `/ready` turns 503 once one of the instance's commits has waited `synchronousCommitStall`, so a balancer
    /// takes it out, and 200 again once the standby requirement is lifted and the waits end. Found by a black-box
    /// review: `/ready` stayed 200 for 90 s while every sign-in answered 503. On a cluster of its own, since the
    /// setting is the whole server's.
    @Test(.postgresOnly) func commitsWaitingForAMissingStandbyMakeTheInstanceNotReady() async throws {
        let cluster = try await PostgresCluster.started()
        defer { cluster.stop() }
        let url = try PostgresURL(try cluster.createDatabase())
        try await TestApp.with(configure: { $0.databaseURL = url }) { app in
            #expect(try await app.send(.GET, "/ready").status == .ok)
            _ = try cluster.query("ALTER SYSTEM SET synchronous_standby_names = '*'")
            _ = try cluster.query("SELECT pg_reload_conf()")
            var notReady = false
            var signIns: [Task<Int, Never>] = []
            // A sign-in that ran before its connection read the new setting commits at once: then another is sent.
            for attempt in 0..<3 where !notReady {
                let token = try app.identityToken(subject: "001.stalled.\(attempt)", email: "s\(attempt)@example.com")
                signIns.append(Task {
                    (try? await app.sendJSON(.POST, "/api/users/siwa", ["token": token]).status.code) ?? 0
                })
                for _ in 0..<60 where !notReady {
                    try await Task.sleep(for: .milliseconds(200))
                    notReady = try await app.send(.GET, "/ready").status == .serviceUnavailable
                }
            }
            #expect(notReady, "/ready turned 503 while a commit waited for a standby")
            #expect(try await app.send(.GET, "/health").status == .ok)

            _ = try cluster.query("ALTER SYSTEM SET synchronous_standby_names = ''")
            _ = try cluster.query("SELECT pg_reload_conf()")
            var ready = false
            for _ in 0..<100 where !ready {
                ready = try await app.send(.GET, "/ready").status == .ok
                if !ready { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(ready, "/ready is 200 again once the waits end")
            for signIn in signIns { #expect([200, 503].contains(await signIn.value)) }
        }
    }
}
