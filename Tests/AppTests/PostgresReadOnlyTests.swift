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
}
