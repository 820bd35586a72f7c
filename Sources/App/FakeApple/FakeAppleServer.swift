import CryptoCore
import Foundation
import HTTPCore
import Logging
import Web

/// The local Apple stand-in as a running server (`siwa fake-apple`, `siwa dev`, and the tests).
public final class FakeAppleServer: Sendable {
    public let keys: FakeAppleKeys
    let state: FakeAppleState
    let controller: FakeAppleController
    let application: Application
    let server: HTTPServer

    /// Builds the stand-in; call `start()` to listen.
    /// - Parameters:
    ///   - hostname: Address to listen on.
    ///   - port: Port to listen on; 0 picks a free one.
    ///   - keys: The identity-token signing key.
    ///   - clientSecretKey: The public half of the operator's `.p8`; when given, client secrets' signatures are checked.
    ///   - clock: The stand-in's clock (tests move it).
    public init(hostname: String = "127.0.0.1", port: Int = 9090, keys: FakeAppleKeys,
                clientSecretKey: ES256PublicKey? = nil, clock: @escaping @Sendable () -> Date = Date.init,
                logger: Logger = Logger(label: "fake-apple")) throws {
        self.keys = keys
        state = FakeAppleState(clock: clock)
        application = Application(logger: logger)
        controller = FakeAppleController(
            keys: keys, state: state, clientSecrets: FakeAppleClientSecretCheck(publicKey: clientSecretKey), clock: clock
        )
        try application.register(collection: controller)
        try application.boot()
        server = HTTPServer(
            configuration: HTTPServerConfiguration(hostname: hostname, port: port, loopCount: 1, accessLog: false),
            responder: application, logger: logger
        )
    }

    public func start() throws { try server.start() }
    public var localPort: Int { server.localPort }
    /// `http://host:port` of the running stand-in.
    public var baseURL: String { "http://\(server.configuration.hostname):\(localPort)" }
    public func shutdown() async { await server.shutdown() }
    public func run() async throws { try await server.run() }

    /// Revocations received so far.
    public func revocations() async -> [FakeAppleRevocation] { await state.revocations }
    /// Whether `refreshToken` has been revoked.
    public func isRevoked(refreshToken: String) async -> Bool { await state.isRevoked(refreshToken: refreshToken) }
    /// Issues an authorization code for `clientID` as Apple gives one to an app (no redirect URI) or a web flow,
    /// with its identity token.
    public func issueAuthorizationCode(clientID: String, redirectURI: String = "", subject: String, email: String,
                                       isPrivateEmail: Bool = false) async throws -> (code: String, idToken: String) {
        try await controller.issueCode(clientID: clientID, redirectURI: redirectURI, subject: subject, email: email,
                                       isPrivateEmail: isPrivateEmail, nonce: nil)
    }

    /// While on, `/auth/token` and `/auth/revoke` answer 503, as during an Apple outage.
    public func simulateOutage(_ outage: Bool) async { await state.setOutage(outage) }

    /// Makes every code issued so far older by `interval`.
    public func ageAuthorizationCodes(by interval: TimeInterval) async { await state.ageCodes(by: interval) }

    /// `siwa fake-apple`: serves until SIGINT or SIGTERM.
    public static func runUntilSignalled(hostname: String, port: Int, keyFile: String,
                                         clientSecretPublicKeyPath: String?) async throws {
        let logger = Logger(label: "fake-apple")
        let keys = try FakeAppleKeys.loadOrCreate(path: keyFile)
        let clientSecretKey = try clientSecretPublicKeyPath.map { path in
            try ES256PrivateKey(pem: String(contentsOfFile: path, encoding: .utf8)).publicKey
        }
        let stand = try FakeAppleServer(hostname: hostname, port: port, keys: keys, clientSecretKey: clientSecretKey,
                                        logger: logger)
        try stand.start()
        let signals = ShutdownSignals.install { await stand.shutdown() }
        logger.notice("Apple stand-in on \(stand.baseURL) (key file \(keyFile), kid \(keys.keyID))")
        try await stand.run()
        withExtendedLifetime(signals) {}
    }
}
