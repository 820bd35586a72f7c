import AppleID
import Foundation
import HTTPCore
import Storage

/// Moving the app, and its users, to another Apple team (TN3159; Apple's "Transferring your apps and users to another
/// team" and "Bringing new apps and users into your team"; README "Moving the app to another team"): what
/// `siwa apple transfer export|import|status` do, on the configured database and with this team's key.
package struct AppleTransfer: Sendable {
    let repository: TransferRepository
    let client: AppleAuthClient
    let tokens: MigrationTokens
    /// This team (`APPLE_TEAM_ID`).
    let teamID: String
    /// The configured client ids, the bundle ids first.
    let clientIDs: [String]
    let bound: Int
    let clock: @Sendable () -> Date

    /// How long after the transfer Apple's migration endpoint serves both teams and identity tokens carry
    /// `transfer_sub` (TN3159: sixty days).
    package static let window: TimeInterval = 60 * 24 * 60 * 60

    /// Whether `text` is shaped like an Apple team id: 10 capital letters or digits.
    package static func isTeamID(_ text: String) -> Bool {
        text.utf8.count == 10 && text.utf8.allSatisfy { ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) }
    }

    /// `body` with the transfer on `environment`'s database and its Sign in with Apple key; the database is closed
    /// after it whatever happens, which leaves a SQLite file as it was found (`OperatorEnvironment.withClient`).
    /// - Throws: `OperatorError` naming what is not configured, or the database that cannot be opened.
    static func with<T>(_ environment: OperatorEnvironment, clock: @escaping @Sendable () -> Date,
                        _ body: (AppleTransfer) async throws -> T) async throws -> T
    {
        let configuration = environment.configuration
        guard let key = configuration.appleKey else {
            throw OperatorError("a transfer needs this team's Sign in with Apple key: "
                + AppleTokenLifecycle.missingKeyReason)
        }
        let clientIDs = configuration.iosClientIDs + (configuration.websiteClientID.map { [$0] } ?? [])
        guard !clientIDs.isEmpty else {
            throw OperatorError("a transfer needs the app's client ids: IOS_APPLICATION_IDENTIFIER or "
                + "WEBSITE_APPLICATION_IDENTIFIER is not set")
        }
        let secret: ClientSecret
        do {
            secret = try ClientSecret.load(teamID: key.teamID, keyID: key.keyID, privateKeyPath: key.privateKeyPath,
                                           clock: clock)
        } catch let error as ClientSecretError {
            throw OperatorError("\(error)")
        }
        return try await environment.withClient { database, _ in
            let http = HTTPClient(configuration: configuration.appleClientConfiguration)
            let client = AppleAuthClient(baseURL: configuration.appleBaseURL, clientSecret: secret, http: http)
            return try await body(AppleTransfer(
                repository: TransferRepository(pool: database), client: client,
                tokens: MigrationTokens(client: client), teamID: key.teamID, clientIDs: clientIDs,
                bound: http.configuration.maxConnectionsPerOrigin, clock: clock))
        }
    }

    /// The client id to ask Apple with for a user who signed in with `recorded`: that one when this server still
    /// serves it, else the first configured. Apple's identifiers are the team's, shared by all its apps ("Protect
    /// user privacy"), so any of the team's client ids is answered alike.
    func clientID(for recorded: String?) -> String {
        if let recorded, clientIDs.contains(recorded) { return recorded }
        return clientIDs[0]
    }

    /// Apple's answer to the probe of `checkCredentials(probe:)`: the run that follows takes it for that identifier
    /// instead of asking again. Found by a review: an import from a file asked about its first line twice.
    struct ProbeAnswer: Sendable {
        let identifier: String
        let user: AppleAuthClient.MigratedUser
    }

    /// Asks Apple for the team's access token before anything changes, waiting out throttling, and with `probe` (a
    /// transfer identifier) also `/auth/usermigrationinfo` once, whose own `invalid_client` the token endpoint does
    /// not show: a key Apple refuses stops the command here. Any other refusal of the probe (the identifier refused,
    /// say) is left to the run that follows, which asks again.
    /// - Returns: how many throttled answers were waited out, for the run's summary, and the probe's answer.
    /// - Throws: `OperatorError` naming `invalid_client`, or why Apple could not be asked.
    func checkCredentials(probe: String? = nil) async throws -> (throttled: Int, answer: ProbeAnswer?) {
        let clientID = clientIDs[0], client = self.client, tokens = self.tokens
        let (result, throttled) = await ChoreAttempts.settle(throttle: ChoreThrottle(), loop: client.http.group.next()) {
            () async throws -> ProbeAnswer? in
            let token = try await tokens.token(for: clientID)
            guard let probe else { return nil }
            do {
                let user = try await client.exchangeTransfer(probe, clientID: clientID, accessToken: token)
                return ProbeAnswer(identifier: probe, user: user)
            } catch let error as AppleAuthError where !error.isTransient && error.kind != .apple("invalid_client") {
                return nil
            }
        }
        switch result {
        case .success(let answer)?: return (throttled, answer)
        case nil: throw OperatorError("stopped before Apple answered; nothing was changed")
        case .failure(let error)?:
            if let error = error as? AppleAuthError, error.kind == .apple("invalid_client") {
                throw OperatorError("Apple refused team \(teamID)'s credentials (\(error.likelyCause)); nothing was changed")
            }
            throw OperatorError("Apple gave no access token (\(TransferRun.reason(error))); nothing was changed")
        }
    }

    /// Runs `run` until it ends or SIGTERM / SIGINT stops it (what was stored stays).
    func runStoppable(_ run: TransferRun, _ tally: TransferTally) async -> TransferTally {
        let task = Task {
            var tally = tally
            await run.run(&tally)
            return tally
        }
        let signals = ShutdownSignals.install { task.cancel() }
        let result = await task.value
        withExtendedLifetime(signals) {}
        return result
    }

    /// A new run with this transfer's bound and loop.
    func makeRun(page: @escaping @Sendable (UUID, Int) async throws -> [TransferRepository.Item],
                 settle: @escaping @Sendable (TransferRepository.Item) async throws -> Bool) -> TransferRun {
        TransferRun(bound: bound, loop: client.http.group.next(), page: page, settle: settle)
    }
}
