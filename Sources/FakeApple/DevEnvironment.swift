import App
import Foundation
import HTTPCore
import Logging
import Web

/// `siwa dev`: the Apple stand-in and the server in one process, configured for each other, so a fresh checkout
/// signs in on `http://127.0.0.1:8080/login` with no Apple account and no network.
package enum DevEnvironment {
    /// The bundle id the stand-in's tokens are minted for in development (`siwa mint --aud dev.siwa.ios`).
    package static let iosClientID = "dev.siwa.ios"
    /// The Services ID of the development web flow.
    package static let websiteClientID = "dev.siwa.web"

    /// The configuration `siwa dev` serves with. `LOG_LEVEL` and `SIWA_WEB_MODE` from the environment still apply.
    /// - Throws: `ConfigurationError` for a `SIWA_WEB_MODE` other than `redirect` or `popup`.
    package static func configuration(hostname: String, port: Int, applePort: Int, databasePath: String,
                                      environment: [String: String] = ProcessInfo.processInfo.environment)
        throws -> Configuration
    {
        var configuration = Configuration()
        configuration.hostname = hostname
        configuration.port = port
        configuration.databasePath = databasePath
        configuration.iosClientIDs = [iosClientID]
        configuration.websiteClientID = websiteClientID
        let host = hostname.contains(":") ? "[\(hostname)]" : hostname
        configuration.redirectURL = "http://\(host):\(port)/login/siwa/callback"
        configuration.appleBaseURL = "http://\(host):\(applePort)"
        configuration.resourcesPath = Configuration.locateResources(configuration.resourcesPath)
        if let mode = environment[WebMode.variable] {
            guard let parsed = WebMode(environmentValue: mode) else {
                throw ConfigurationError.malformed(name: WebMode.variable, expected: "redirect or popup")
            }
            configuration.webMode = parsed
        }
        if let level = environment["LOG_LEVEL"].flatMap({ Logger.Level(rawValue: $0.lowercased()) }) {
            configuration.logLevel = level
        }
        return configuration
    }

    /// Starts both, prints how to use them, and serves until SIGINT or SIGTERM.
    package static func run(hostname: String, port: Int, applePort: Int, databasePath: String, keyFile: String)
        async throws
    {
        var configuration = try configuration(hostname: hostname, port: port, applePort: applePort,
                                          databasePath: databasePath)
        let secrets = try DevSecrets.loadOrCreate(besides: keyFile)
        configuration.appleKey = Configuration.AppleKeyConfiguration(
            teamID: DevSecrets.teamID, keyID: DevSecrets.keyID, privateKeyPath: secrets.clientKeyPath
        )
        configuration.encryptionKey = secrets.encryptionKey
        var logger = Logger(label: "siwa")
        logger.logLevel = configuration.logLevel
        let stand = try FakeAppleServer(hostname: hostname, port: applePort,
                                        keys: try FakeAppleKeys.loadOrCreate(path: keyFile),
                                        clientSecretKey: try secrets.clientKey.publicKey,
                                        logger: Logger(label: "fake-apple"))
        try stand.start()
        signal(SIGXFSZ, SIG_IGN)  // as `siwa serve`: past `ulimit -f` a write fails with EFBIG (a 503) instead
        let server = try await SiwaServer(configuration: configuration, logger: logger)
        try server.start()
        let signals = ShutdownSignals.install {
            await server.shutdown()
            await stand.shutdown()
        }
        logger.notice("Apple stand-in on \(stand.baseURL)")
        logger.notice("siwa on http://\(hostname):\(server.localPort) — open /login to sign in")
        logger.notice("iOS API: siwa mint --aud \(iosClientID) --key-file \(keyFile) gives a token for POST /api/users/siwa")
        async let serving: Void = server.run()
        async let standing: Void = stand.run()
        _ = try await (serving, standing)
        withExtendedLifetime(signals) {}
    }
}
