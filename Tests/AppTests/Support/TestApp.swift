import CryptoCore
@testable import FakeApple
import Foundation
import HTTPCore
import Logging
@testable import App
import Storage
import TestSupport

/// The server and the Apple stand-in, in process on ephemeral loopback ports, with a fresh SQLite file.
final class TestApp: Sendable {
    static let iosClientID = "com.example.til"
    static let webClientID = "com.example.til.web"

    let directory: URL
    let apple: FakeAppleServer
    let server: SiwaServer
    let client: HTTPClient

    /// `https://` when the server terminates TLS itself (`configuration.tls`).
    var baseURL: String { "\(server.configuration.tls == nil ? "http" : "https")://127.0.0.1:\(server.localPort)" }
    var keys: FakeAppleKeys { apple.keys }
    var databasePath: String { server.configuration.databasePath }

    /// Starts both. `configure` may change the server's configuration (defaults: both flows on).
    /// - Parameters:
    ///   - lifecycle: configure the Apple key (`.p8`) and encryption key, and make the stand-in check client
    ///     secrets against that key.
    ///   - standInClientKey: the key the stand-in checks client secrets with, when not the server's own.
    ///   - otherTeams: other teams' keys the stand-in knows too (a transfer's receiving team).
    ///   - logger: the server's logger (default: quiet).
    ///   - clock: the server's clock (tokens, key-cache expiry and refetch interval).
    static func start(directory: URL? = nil, lifecycle: Bool = true, standInClientKey: ES256PublicKey? = nil,
                      otherTeams: [FakeAppleClientSecretCheck.KnownKey] = [], logger: Logger? = nil,
                      clock: TestClock? = nil,
                      configure: (inout Configuration) -> Void = { _ in }) async throws -> TestApp {
        let owned = directory == nil
        let directory = directory ?? temporaryDirectory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // What started before a failure is stopped, and a folder of our own removed, so no test leaks either.
        var standIn: FakeAppleServer?
        var started: SiwaServer?
        do {
            let secrets = try DevSecrets.loadOrCreate(besides: directory.appendingPathComponent("apple.pem").path)
            let stand = try FakeAppleServer(
                hostname: "127.0.0.1", port: 0,
                keys: try FakeAppleKeys.fixture(in: directory),
                clientSecretKey: try standInClientKey ?? secrets.clientKey.publicKey, otherTeams: otherTeams,
                logger: quietLogger("fake-apple")
            )
            standIn = stand
            try stand.start()
            var configuration = Configuration()
            configuration.hostname = "127.0.0.1"
            configuration.port = 0
            configuration.databasePath = directory.appendingPathComponent("siwa.sqlite").path
            if PostgresCluster.testsUsePostgres {
                let database = try await PostgresCluster.sharedDatabase(for: directory.path)
                configuration.databaseURL = try PostgresURL(database)
            }
            configuration.iosClientIDs = [iosClientID]
            configuration.websiteClientID = webClientID
            configuration.redirectURL = "http://127.0.0.1/login/siwa/callback"
            configuration.appleBaseURL = stand.baseURL
            configuration.resourcesPath = Configuration.locateResources("Resources")
            if lifecycle {
                configuration.appleKey = Configuration.AppleKeyConfiguration(
                    teamID: DevSecrets.teamID, keyID: DevSecrets.keyID, privateKeyPath: secrets.clientKeyPath
                )
                configuration.encryptionKey = try SecretFile.loadOrCreate(
                    path: directory.appendingPathComponent("apple.pem.encryption-key").path, count: AES256GCM.keySize)
            }
            configuration.appleChoresInterval = 0
            configure(&configuration)
            let server = try await SiwaServer(configuration: configuration, logger: logger ?? quietLogger("siwa"),
                                              clock: clock?.closure ?? Date.init)
            started = server
            try server.start()
            return TestApp(directory: directory, apple: stand, server: server)
        } catch {
            await started?.shutdown()
            await standIn?.shutdown()
            if owned { try? FileManager.default.removeItem(at: directory) }
            throw error
        }
    }

    /// Starts both as `start` does, runs `body` with them, and stops both whether `body` returns or throws (or
    /// an `#require` fails), so no test leaves a server or a stand-in behind. The files go too, unless the caller
    /// gave the `directory` (then it is the caller's: to read the files once the server is stopped, or to restart
    /// on them).
    static func with<T>(directory: URL? = nil, lifecycle: Bool = true, standInClientKey: ES256PublicKey? = nil,
                        otherTeams: [FakeAppleClientSecretCheck.KnownKey] = [], logger: Logger? = nil,
                        clock: TestClock? = nil, configure: (inout Configuration) -> Void = { _ in },
                        _ body: (TestApp) async throws -> T) async throws -> T {
        let app = try await start(directory: directory, lifecycle: lifecycle, standInClientKey: standInClientKey,
                                  otherTeams: otherTeams, logger: logger, clock: clock, configure: configure)
        do {
            let result = try await body(app)
            await app.stop(keepFiles: directory != nil)
            return result
        } catch {
            await app.stop(keepFiles: directory != nil)
            throw error
        }
    }

    private init(directory: URL, apple: FakeAppleServer, server: SiwaServer) {
        self.directory = directory
        self.apple = apple
        self.server = server
        client = HTTPClient(configuration: HTTPClient.Configuration(
            timeout: .seconds(30 * Sanitizer.timeScale), connectTimeout: .seconds(10 * Sanitizer.timeScale),
            extraCAFile: server.configuration.tls?.certificatePath))
    }

    /// Stops both and removes the files.
    func stop(keepFiles: Bool = false) async {
        await server.shutdown()
        await apple.shutdown()
        if !keepFiles { try? FileManager.default.removeItem(at: directory) }
    }

    /// A new folder name under the temporary directory (not created).
    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("siwa-app-tests-\(UUID().uuidString)")
    }

    /// Runs `body` with a new, empty `temporaryDirectory()`, removed afterwards whether `body` returns or throws.
    static func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
        let directory = temporaryDirectory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory)
    }

    static func quietLogger(_ label: String) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = .critical
        return logger
    }

    /// One request to the server.
    func send(_ method: HTTPMethod, _ path: String, headers: HTTPHeaders = [:], body: [UInt8] = []) async throws
        -> HTTPClientResponse
    {
        try await client.send(HTTPClientRequest(method: method, url: baseURL + path, headers: headers, body: body))
    }

    func sendJSON(_ method: HTTPMethod, _ path: String, _ object: [String: Any], bearer: String? = nil) async throws
        -> HTTPClientResponse
    {
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        if let bearer { headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        return try await send(method, path, headers: headers, body: Array(try JSONSerialization.data(withJSONObject: object)))
    }

    func sendForm(_ path: String, _ fields: [(String, String)], cookies: [String: String] = [:]) async throws
        -> HTTPClientResponse
    {
        var headers: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded"]
        if !cookies.isEmpty {
            headers.add(name: "Cookie", value: cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; "))
        }
        return try await send(.POST, path, headers: headers, body: Array(Self.formEncode(fields).utf8))
    }

    static func formEncode(_ fields: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.map { name, value in
            "\(name.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")="
                + (value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
        }.joined(separator: "&")
    }

    /// A token minted by the stand-in's key, as the iOS app would receive it.
    func identityToken(subject: String = "001234.\(UUID().uuidString.lowercased()).0001",
                       audience: String = TestApp.iosClientID, email: String? = "jane@example.com",
                       isPrivateEmail: Bool = false, nonce: String? = nil, issuedAt: Date = Date(),
                       lifetime: TimeInterval = 600) throws -> String {
        try keys.mintIdentityToken(IdentityTokenRequest(
            subject: subject, audience: audience, email: email, isPrivateEmail: isPrivateEmail, nonce: nonce,
            lifetime: lifetime
        ), now: issuedAt)
    }

    /// An app's sign-in with what `ASAuthorizationAppleIDCredential` gives it: the stand-in issues an authorization
    /// code and its identity token for `subject`, and both go to `POST /api/users/siwa`, so the server exchanges the
    /// code and keeps Apple's refresh token.
    func signInWithAuthorizationCode(subject: String, email: String, name: String? = nil) async throws
        -> HTTPClientResponse
    {
        let issued = try await apple.issueAuthorizationCode(clientID: Self.iosClientID, subject: subject, email: email)
        var body: [String: Any] = ["token": issued.idToken, "authorizationCode": issued.code]
        if let name { body["name"] = name }
        return try await sendJSON(.POST, "/api/users/siwa", body)
    }

    /// Waits until Apple's key set is kept in the database: the cache saves it after a fetch without its callers
    /// waiting, so a test that counts a sign-in's round trips waits for that save first.
    func waitForKeptKeySet() async throws {
        for _ in 0..<200 where try await count("jwks_cache") == 0 { try await Task.sleep(for: .milliseconds(25)) }
    }

    /// Number of rows in `table`, read with the sqlite3 C API through the app's own storage layer.
    func count(_ table: String) async throws -> Int {
        try await server.services.database.readOne(SQL("SELECT COUNT(*) FROM \(table)")) { row in try row[0] as Int } ?? 0
    }
}

extension HTTPClientResponse {
    var text: String { String(decoding: body, as: UTF8.self) }

    func json() throws -> [String: Any] {
        (try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]) ?? [:]
    }

    /// `Set-Cookie` values by cookie name.
    var setCookies: [String: String] {
        var cookies: [String: String] = [:]
        for header in headers.values(for: "Set-Cookie") {
            let name = String(header.prefix { $0 != "=" })
            cookies[name] = header
        }
        return cookies
    }

    /// The value a `Set-Cookie` sets for `name`.
    func cookieValue(_ name: String) -> String? {
        guard let header = setCookies[name] else { return nil }
        return String(header.dropFirst(name.count + 1).prefix { $0 != ";" })
    }
}
