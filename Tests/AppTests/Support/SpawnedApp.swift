@testable import FakeApple
import Foundation
import Glibc
import HTTPCore
import Logging
@testable import App

/// The real `siwa serve` (a `SiwaProcess`) on a SQLite file in a temp directory, against the Apple stand-in
/// running in the test (tokens are minted with the stand-in's key, as `siwa mint` does).
final class SpawnedApp {
    static let clientID = "com.example.til"

    let directory: URL
    let apple: FakeAppleServer
    let client = HTTPClient()
    private(set) var server: SiwaProcess?
    private(set) var baseURL = ""

    var databasePath: String { directory.appendingPathComponent("db/siwa.sqlite").path }
    /// The server's copy of the templates and static files.
    var resources: URL { directory.appendingPathComponent("Resources") }
    static let packageResources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../Resources").standardized
    var keys: FakeAppleKeys { apple.keys }

    /// The stand-in and a directory holding `db/` for the database, writable by anyone, and a copy of the
    /// package's `Resources/`, so a server run as another user can use both wherever the package is checked out
    /// (a clone in a `mktemp -d` folder is readable by its owner only).
    private init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("siwa-spawned-\(UUID().uuidString.lowercased())")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("db"),
                                                withIntermediateDirectories: true)
        chmod(directory.path, 0o777)
        chmod(directory.appendingPathComponent("db").path, 0o777)
        try FileManager.default.copyItem(at: Self.packageResources, to: directory.appendingPathComponent("Resources"))
        apple = try FakeAppleServer(
            hostname: "127.0.0.1", port: 0,
            keys: try FakeAppleKeys.fixture(in: directory),
            logger: TestApp.quietLogger("fake-apple")
        )
        try apple.start()
    }

    /// The environment of `siwa serve`: a free port, the database, the API route, the stand-in.
    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        [
            "PORT": "0", "HOSTNAME": "127.0.0.1", "DATABASE_PATH": databasePath,
            "IOS_APPLICATION_IDENTIFIER": Self.clientID, "APPLE_BASE_URL": apple.baseURL, "LOG_LEVEL": "info",
            "RESOURCES_PATH": resources.path,
        ].merging(extra) { $1 }
    }

    /// Runs `body` with a new stand-in and folder, and stops both (and any server) whether it returns or throws.
    static func with<T>(_ body: (SpawnedApp) async throws -> T) async throws -> T {
        let app = try SpawnedApp()
        do {
            let result = try await body(app)
            await app.stop()
            return result
        } catch {
            await app.stop()
            throw error
        }
    }

    /// Starts `siwa serve` and returns at once, for a start-up that is expected to fail.
    func spawn(_ extra: [String: String] = [:]) throws -> SiwaProcess {
        let process = try SiwaProcess(["serve"], environment: environment(extra), directory: directory)
        server = process
        return process
    }

    /// Starts `siwa serve` and waits until it listens.
    @discardableResult
    func launch(_ extra: [String: String] = [:], wrapper: [String] = []) async throws -> SiwaProcess {
        let process = try SiwaProcess(["serve"], environment: environment(extra), directory: directory, wrapper: wrapper)
        server = process
        baseURL = "http://127.0.0.1:\(try await process.waitForPort())"
        return process
    }

    /// Stops the server (SIGTERM), if one runs, and the stand-in, and removes the files.
    private func stop() async {
        await server?.terminate()
        await apple.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    func identityToken(subject: String) throws -> String {
        try keys.mintIdentityToken(IdentityTokenRequest(subject: subject, audience: Self.clientID,
                                                        email: "\(subject)@example.com"))
    }

    func signIn(token: String) async throws -> HTTPClientResponse {
        try await client.send(HTTPClientRequest(
            method: .POST, url: baseURL + "/api/users/siwa", headers: ["Content-Type": "application/json"],
            body: Array(try JSONSerialization.data(withJSONObject: ["token": token]))
        ))
    }

    func me(bearer: String) async throws -> HTTPClientResponse {
        try await client.send(HTTPClientRequest(method: .GET, url: baseURL + "/api/users/me",
                                                headers: ["Authorization": "Bearer \(bearer)"]))
    }

    func health() async throws -> HTTPClientResponse {
        try await client.send(HTTPClientRequest(method: .GET, url: baseURL + "/health"))
    }

    func ready() async throws -> HTTPClientResponse {
        try await client.send(HTTPClientRequest(method: .GET, url: baseURL + "/ready"))
    }
}
