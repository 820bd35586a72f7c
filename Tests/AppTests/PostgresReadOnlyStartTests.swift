import Foundation
import Glibc
import HTTPCore
import Storage
import TestSupport
import Testing
@testable import App

/// `siwa serve` started while its `DATABASE_URL` reaches only a server that takes no writes (a standby, or with
/// `target_session_attrs=read-write` only standbys): it does not exit. It serves `/health`, answers `/ready` and
/// every other route 503 with `Retry-After`, logs that the database is read-only, and starts for real once the
/// database takes writes. A standby is played by `default_transaction_read_only`, as `PostgresReadOnlyTests` does.
@Suite(.postgres, .serialized, .timeLimit(.minutes(2)))
struct PostgresReadOnlyStartTests {
    static let holding = "siwa holding on http://127.0.0.1:"

    /// A fresh database that takes no writes, its URL, and an admin pool to turn writes back on.
    private func readOnlyDatabase() async throws -> (url: String, name: String, admin: PostgresPool) {
        let cluster = try await PostgresCluster.sharedCluster()
        let url = try await cluster.newDatabase()
        let name = String(url.split(separator: "/").last ?? "")
        let admin = try PostgresPool(url: try PostgresURL(cluster.url()), size: 1)
        try await admin.write(SQL("ALTER DATABASE \(name) SET default_transaction_read_only = on"))
        return (url, name, admin)
    }

    @Test(arguments: [false, true])
    func anInstanceStartedOnAReadOnlyDatabaseServesHealthThenStartsOnceItTakesWrites(readWriteOnly: Bool) async throws {
        let database = try await readOnlyDatabase()
        let url = database.url + (readWriteOnly ? "?target_session_attrs=read-write" : "")
        try await SpawnedApp.with { app in
            let server = try app.spawn(["DATABASE_URL": url])
            let base = "http://127.0.0.1:\(try await server.waitForPort(after: Self.holding))"
            #expect(server.output.contains("is read-only"), "\(server.output.suffix(800))")
            #expect(try await app.client.send(HTTPClientRequest(url: base + "/health")).status == .ok)
            let ready = try await app.client.send(HTTPClientRequest(url: base + "/ready"))
            #expect(ready.status == .serviceUnavailable)
            #expect(ready.headers["Retry-After"] == "\(DatabaseUnavailableMiddleware.retryAfterSeconds)")
            let signIn = try await app.client.send(HTTPClientRequest(
                method: .POST, url: base + "/api/users/siwa", headers: ["Content-Type": "application/json"],
                body: Array(#"{"token":"x"}"#.utf8)))
            #expect(signIn.status == .serviceUnavailable)
            #expect(signIn.headers["Retry-After"] != nil)
            let error = try JSONSerialization.jsonObject(with: Data(signIn.body)) as? [String: Any]
            #expect(error?["error"] as? Bool == true && error?["reason"] is String)

            try await database.admin.write(SQL("ALTER DATABASE \(database.name) SET default_transaction_read_only = off"))
            let port = try await server.waitForPort(timeout: 30)
            let started = try await app.client.send(HTTPClientRequest(
                method: .POST, url: "http://127.0.0.1:\(port)/api/users/siwa", headers: ["Content-Type": "application/json"],
                body: Array(try JSONSerialization.data(withJSONObject: ["token": try app.identityToken(subject: "001.ro.start")]))))
            #expect(started.status == .ok, "\(server.output.suffix(800))")
            #expect(try await app.client.send(HTTPClientRequest(url: "http://127.0.0.1:\(port)/ready")).status == .ok)
            server.signal(SIGTERM)
            #expect(await server.terminate() == 0)
        }
    }

    /// With built-in TLS, SIGHUP while the start waits for a writable database is answered with a line (the
    /// server reads the files as it starts), not with the signal's default action, which ended the process.
    @Test func aSighupWhileTheStartWaitsIsAnsweredAndTheServerStartsWithTheFiles() async throws {
        let database = try await readOnlyDatabase()
        let certificate = try SelfSignedCertificate.make()
        try await SpawnedApp.with { app in
            let server = try app.spawn(["DATABASE_URL": database.url, "TLS_CERT_PATH": certificate.certificatePath,
                                        "TLS_KEY_PATH": certificate.privateKeyPath])
            _ = try await server.waitForPort(after: "siwa holding on https://127.0.0.1:")
            server.signal(SIGHUP)
            for _ in 0..<500 where !server.output.contains("SIGHUP while the server does not listen") {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(server.output.contains("SIGHUP while the server does not listen"), "\(server.output.suffix(800))")
            try await database.admin.write(SQL("ALTER DATABASE \(database.name) SET default_transaction_read_only = off"))
            let port = try await server.waitForPort(after: "siwa listening on https://127.0.0.1:", timeout: 30)
            let client = HTTPClient(configuration: .init(extraCAFile: certificate.certificatePath))
            #expect(try await client.send(HTTPClientRequest(url: "https://localhost:\(port)/ready")).status == .ok)
            #expect(await server.terminate() == 0)
        }
    }

    /// Found by an audit: with the primary down and listed first, libpq's message named the refused host on its
    /// first line and the read-only one on the next, which was cut off, so the instance exited after 30 s instead of
    /// holding: the failover gap at a rolling restart.
    @Test func aReadOnlyServerAfterARefusingHostIsHeldForToo() async throws {
        let database = try await readOnlyDatabase()
        let refused = try LoopbackPort.free()
        let url = database.url.replacingOccurrences(of: "@127.0.0.1:", with: "@127.0.0.1:\(refused),127.0.0.1:")
            + "?target_session_attrs=read-write"
        try await SpawnedApp.with { app in
            let server = try app.spawn(["DATABASE_URL": url])
            _ = try await server.waitForPort(after: Self.holding)
            #expect(server.output.contains("is read-only"), "\(server.output.suffix(800))")
            server.signal(SIGTERM)
            #expect(await server.exited(within: .seconds(30)) == 0, "\(server.output.suffix(800))")
        }
    }

    @Test func sigtermDuringTheHoldExitsCleanly() async throws {
        let database = try await readOnlyDatabase()
        try await SpawnedApp.with { app in
            let server = try app.spawn(["DATABASE_URL": database.url])
            _ = try await server.waitForPort(after: Self.holding)
            server.signal(SIGTERM)
            #expect(await server.exited(within: .seconds(30)) == 0, "\(server.output.suffix(800))")
            #expect(!server.output.contains("siwa listening on"))
        }
    }

    /// An operator's command on a read-only database says so and what to do, not that PostgreSQL cannot be reached:
    /// it was reached. Found by a black-box review.
    @Test func anOperatorsCommandOnAReadOnlyDatabaseSaysItTakesNoWrites() async throws {
        let database = try await readOnlyDatabase()
        try await SpawnedApp.with { app in
            let result = try await SiwaProcess.run(["users", "show", "someone@example.com"],
                                                   environment: app.environment(["DATABASE_URL": database.url]),
                                                   directory: app.directory)
            #expect(result.status == 1)
            #expect(result.output.contains("siwa: DATABASE_URL: PostgreSQL at 127.0.0.1:"), "\(result.output)")
            #expect(result.output.contains("takes no writes: the database is read-only (a standby?)"),
                    "\(result.output)")
            #expect(!result.output.contains("cannot reach"), "\(result.output)")
        }
    }
}
