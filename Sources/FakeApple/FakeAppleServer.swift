import CryptoCore
import Foundation
import HTTPCore
import Logging
import Web

/// The local Apple stand-in as a running server (`siwa fake-apple`, `siwa dev`, and the tests).
package final class FakeAppleServer: Sendable {
    package let keys: FakeAppleKeys
    let state: FakeAppleState
    let transfers = FakeAppleTransfers()
    let controller: FakeAppleController
    let knobs = FakeAppleTokenKnobs()
    let application: Application
    let server: HTTPServer

    /// Builds the stand-in; call `start()` to listen.
    /// - Parameters:
    ///   - hostname: Address to listen on.
    ///   - port: Port to listen on; 0 picks a free one.
    ///   - keys: The identity-token signing key.
    ///   - clientSecretKey: The public half of the `.p8` the stand-in knows; when given, client secrets must be
    ///     signed with it and name `clientSecretTeamID` (`iss`) and `clientSecretKeyID` (`kid`), as Apple checks.
    ///   - otherTeams: the keys of other teams the stand-in knows as well, for a transfer between two teams.
    ///   - webClients: the Services IDs `/auth/authorize` knows, each with its registered return URLs; empty, it
    ///     takes any (Apple refuses the others).
    ///   - clock: The stand-in's clock (tests move it).
    package init(hostname: String = "127.0.0.1", port: Int = 9090, keys: FakeAppleKeys,
                clientSecretKey: ES256PublicKey? = nil, clientSecretTeamID: String = DevSecrets.teamID,
                clientSecretKeyID: String = DevSecrets.keyID,
                otherTeams: [FakeAppleClientSecretCheck.KnownKey] = [],
                webClients: [String: [String]] = [:],
                clock: @escaping @Sendable () -> Date = Date.init,
                logger: Logger = Logger(label: "fake-apple")) throws {
        self.keys = keys
        state = FakeAppleState(clock: clock)
        application = Application(logger: logger)
        controller = FakeAppleController(
            keys: keys, state: state, transfers: transfers,
            clientSecrets: FakeAppleClientSecretCheck(knownKeys: (clientSecretKey.map {
                [.init(publicKey: $0, teamID: clientSecretTeamID, keyID: clientSecretKeyID)]
            } ?? []) + otherTeams),
            knobs: knobs, webClients: webClients, clock: clock
        )
        try application.register(collection: controller)
        try application.boot()
        server = HTTPServer(
            configuration: HTTPServerConfiguration(hostname: hostname, port: port, loopCount: 1, accessLog: false),
            responder: application, logger: logger
        )
    }

    package func start() throws { try server.start() }
    package var localPort: Int { server.localPort }
    /// `http://host:port` of the running stand-in.
    package var baseURL: String { "http://\(server.configuration.hostname):\(localPort)" }
    package func shutdown() async { await server.shutdown() }
    package func run() async throws { try await server.run() }

    /// Revocations received so far.
    package func revocations() async -> [FakeAppleRevocation] { await state.revocations }
    /// Whether `refreshToken` has been revoked.
    package func isRevoked(refreshToken: String) async -> Bool { await state.isRevoked(refreshToken: refreshToken) }
    /// Issues an authorization code for `clientID` as Apple gives one to an app (no redirect URI) or a web flow,
    /// with its identity token, which carries `nonce` as Apple copies it from the request.
    package func issueAuthorizationCode(clientID: String, redirectURI: String = "", subject: String, email: String,
                                       isPrivateEmail: Bool = false, nonce: String? = nil) async throws
        -> (code: String, idToken: String) {
        let grant = FakeAppleState.Grant(clientID: clientID, subject: subject, email: email, isPrivateEmail: isPrivateEmail)
        let (code, idToken, _) = try await controller.issueCode(grant, redirectURI: redirectURI, nonce: nonce)
        return (code, idToken)
    }

    /// While on, `/auth/token`, `/auth/revoke` and `/auth/usermigrationinfo` answer 503, as during an Apple outage:
    /// the failure `POST /dev/faults` sets with `status=503` (off ends whichever failure is set).
    package func simulateOutage(_ outage: Bool) async { await knobs.setFailure(outage ? (503, nil) : nil) }

    /// Adds `seconds` before every `/auth/token`, `/auth/revoke` and `/auth/usermigrationinfo` answer (Apple far
    /// away, or slow).
    package func setTokenLatency(_ seconds: Double) async { await knobs.setLatency(seconds) }
    /// The most `/auth/token` calls in flight at once since start or `resetTokenPeak()`.
    package func tokenPeakInFlight() async -> Int { await knobs.peakInFlight }
    package func resetTokenPeak() async { await knobs.resetPeak() }
    /// `grant_type=refresh_token` calls answered so far.
    package func refreshCalls() async -> Int { await knobs.refreshCalls }

    /// A refresh token the stand-in honours for any client as if it had issued it to `subject` (until revoked):
    /// stored tokens for tests and benchmarks of Apple's chores without a sign-in each.
    package static func seededRefreshToken(subject: String) -> String { FakeAppleState.seededPrefix + subject }

    /// `client_credentials` access tokens issued so far (both teams).
    package func migrationAccessTokensIssued() async -> Int { await transfers.clientCredentialsCalls }
    /// `/auth/usermigrationinfo` calls answered past the credential checks so far.
    package func migrationCalls() async -> Int { await transfers.migrationCalls }
    /// `/auth/usermigrationinfo` calls answered 429 so far.
    package func throttledMigrationCalls() async -> Int { await transfers.throttledCalls }
    /// The next `count` calls to `/auth/usermigrationinfo` answer 429 with `Retry-After: retryAfter` seconds.
    package func throttleMigrationCalls(next count: Int, retryAfter: Int) async {
        await transfers.throttle(next: count, retryAfter: retryAfter)
    }
    /// Makes `/auth/usermigrationinfo` answer `invalid_client` (or not), once it has answered `calls` more calls,
    /// while `/auth/token` still issues access tokens: a key whose team the app did not move to, or one revoked
    /// during a run, as a test needs it.
    package func refuseMigrationCredentials(_ refuse: Bool, after calls: Int = 0) async {
        await transfers.refuseMigrationCredentials(refuse, after: calls)
    }
    /// Makes `/auth/usermigrationinfo` answer `invalid_request` to the sending team for `sub` from now on, as Apple
    /// does for some users who revoked access before the transfer.
    package func refuseTransferIdentifier(forSub sub: String) async {
        await transfers.refuseTransferIdentifier(forSub: sub)
    }
    /// Completes the app's transfer to `team`, as App Store Connect would.
    package func completeTransfer(to team: String) async { await transfers.completeTransfer(to: team, now: Date()) }

    /// Makes every code issued so far older by `interval`.
    package func ageAuthorizationCodes(by interval: TimeInterval) async { await state.ageCodes(by: interval) }

    /// `siwa fake-apple`: serves until SIGINT or SIGTERM. Client secrets must be signed with the key at
    /// `clientSecretKeyPath` (a `.p8`, or its public half in PEM) and name `teamID` and `keyID`; without a path, with
    /// the development key kept beside `keyFile` (made when missing), which `siwa dev` uses too.
    /// `otherTeams` are other teams' keys it knows as well (`TEAM_ID:KEY_ID:PATH`), to rehearse a transfer.
    package static func runUntilSignalled(hostname: String, port: Int, keyFile: String, clientSecretKeyPath: String?,
                                         teamID: String? = nil, keyID: String? = nil,
                                         otherTeams: [String] = [], webClients: [String: [String]] = [:]) async throws {
        let logger = Logger(label: "fake-apple")
        let keys = try FakeAppleKeys.loadOrCreate(path: keyFile)
        // Like Apple, the stand-in knows the operator's key: the one the server signs with (APPLE_PRIVATE_KEY_PATH,
        // APPLE_TEAM_ID, APPLE_KEY_ID in the environment or .env) unless told otherwise, else the development key.
        let environment = try Environment.load()
        let operatorKey = environment.get("APPLE_PRIVATE_KEY_PATH")
        let clientSecretKeyPath = clientSecretKeyPath ?? operatorKey
        let teamID = teamID ?? operatorKey.flatMap { _ in environment.get("APPLE_TEAM_ID") } ?? DevSecrets.teamID
        let keyID = keyID ?? operatorKey.flatMap { _ in environment.get("APPLE_KEY_ID") } ?? DevSecrets.keyID
        let clientSecretKey: ES256PublicKey
        let keyPath: String
        // The development key named by path (a `.env` written while the stand-in starts) is made like the default.
        let developmentKeyPath = keyFile + DevSecrets.clientKeySuffix
        if let clientSecretKeyPath, Self.samePath(clientSecretKeyPath, developmentKeyPath) == false {
            guard let pem = try? String(contentsOfFile: clientSecretKeyPath, encoding: .utf8) else {
                throw FakeAppleError.unreadableOperatorKey(clientSecretKeyPath)
            }
            clientSecretKey = try (try? ES256PrivateKey(pem: pem).publicKey) ?? ES256PublicKey(pem: pem)
            keyPath = clientSecretKeyPath
        } else {
            let secrets = try DevSecrets.loadOrCreate(besides: keyFile)
            clientSecretKey = try secrets.clientKey.publicKey
            keyPath = secrets.clientKeyPath
        }
        let teams = try otherTeams.map(FakeAppleClientSecretCheck.KnownKey.init(teamKey:))
        let stand = try FakeAppleServer(hostname: hostname, port: port, keys: keys, clientSecretKey: clientSecretKey,
                                        clientSecretTeamID: teamID, clientSecretKeyID: keyID, otherTeams: teams,
                                        webClients: webClients, logger: logger)
        try stand.start()
        let signals = ShutdownSignals.install { await stand.shutdown() }
        logger.notice("Apple stand-in on \(stand.baseURL) (key file \(keyFile), kid \(keys.keyID))")
        logger.notice("client secrets must be signed with \(keyPath), APPLE_TEAM_ID=\(teamID), APPLE_KEY_ID=\(keyID)")
        for team in teams { logger.notice("also team \(team.teamID), key \(team.keyID), for a transfer") }
        try await stand.run()
        withExtendedLifetime(signals) {}
    }

    /// Whether two paths name one file, as absolute standardized paths.
    private static func samePath(_ first: String, _ second: String) -> Bool {
        URL(fileURLWithPath: first).standardizedFileURL.path == URL(fileURLWithPath: second).standardizedFileURL.path
    }
}
