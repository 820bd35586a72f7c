import App
import FakeApple
import Foundation
import HTTPCore
import Logging
import Web

/// `siwa dev`: the Apple stand-in and the server in one process (`Configuration.development`), so a fresh checkout
/// signs in on `http://127.0.0.1:8080/login` with no Apple account and no network. The CLI is where the two meet:
/// neither module imports the other.
enum DevEnvironment {
    /// The Services ID and return URL the stand-in's `/auth/authorize` takes: the server's own, as registered at
    /// Apple, so that the page asks for nothing Apple would refuse.
    static func webClients(_ configuration: Configuration) -> [String: [String]] {
        guard let servicesID = configuration.websiteClientID, let returnURL = configuration.redirectURL else {
            return [:]
        }
        return [servicesID: [returnURL]]
    }

    /// Starts both, prints how to use them, and serves until SIGINT or SIGTERM.
    static func run(hostname: String, port: Int, applePort: Int, databasePath: String, keyFile: String)
        async throws
    {
        // Port 0 is resolved to a free port here, before the two are wired to each other's address (found by a
        // review: they were wired to port 0, and no sign-in worked).
        let applePort = try PortOption.checkFree(hostname: hostname, port: applePort, of: "the Apple stand-in",
                                                 option: "--apple-port")
        var port = try PortOption.checkFree(hostname: hostname, port: port, of: "the server", option: "--port")
        if port == applePort {
            port = try PortOption.checkFree(hostname: hostname, port: 0, of: "the server", option: "--port")
        }
        var configuration = try Configuration.development(hostname: hostname, port: port, applePort: applePort,
                                                          databasePath: databasePath)
        let secrets = try DevSecrets.loadOrCreate(besides: keyFile)
        configuration.appleKey = Configuration.AppleKeyConfiguration(
            teamID: DevSecrets.teamID, keyID: DevSecrets.keyID, privateKeyPath: secrets.clientKeyPath
        )
        // The refresh-token key lives where `siwa serve` keeps it and `siwa backup` names it, beside the database
        // (no SIWA_ENCRYPTION_KEY); the one an older `siwa dev` kept beside the stand-in's key file is copied there.
        try AppleTokenLifecycle.adoptKeyFile(from: DevSecrets.legacyEncryptionKeyPath(besides: keyFile),
                                             databasePath: databasePath)
        var logger = Logger(label: "siwa")
        logger.logLevel = configuration.logLevel
        var standInLogger = Logger(label: "fake-apple")
        standInLogger.logLevel = configuration.logLevel  // LOG_LEVEL for both (found by a review)
        let stand = try FakeAppleServer(hostname: hostname, port: applePort,
                                        keys: try FakeAppleKeys.loadOrCreate(path: keyFile),
                                        clientSecretKey: try secrets.clientKey.publicKey,
                                        webClients: Self.webClients(configuration), logger: standInLogger)
        try stand.start()
        signal(SIGXFSZ, SIG_IGN)  // as `siwa serve`: past `ulimit -f` a write fails with EFBIG (a 503) instead
        let server = try await SiwaServer(configuration: configuration, logger: logger)
        try server.start()
        let signals = ShutdownSignals.install(logger: logger) {
            await server.shutdown()
            await stand.shutdown()
        }
        logger.notice("Apple stand-in on \(stand.baseURL)")
        let host = Configuration.urlHost(hostname)
        logger.notice("database: \(configuration.databaseDescription)")
        let ignored = Configuration.variablesDevelopmentIgnores(in: ProcessInfo.processInfo.environment)
            .joined(separator: ", ")
        if !ignored.isEmpty {
            logger.notice("siwa dev wires these itself and ignores them (siwa serve reads them): \(ignored)")
        }
        logger.notice("siwa on http://\(host):\(server.localPort) — open /login to sign in")
        // The key file's absolute path: a relative one, run from another folder, made mint a key of its own there,
        // whose tokens the server refused (found by a black-box review).
        let keyPath = URL(fileURLWithPath: keyFile).standardized.path
        logger.notice("""
            iOS API: siwa mint --aud \(Configuration.developmentIOSClientID) --key-file \(keyPath) gives a token for \
            POST /api/users/siwa
            """)
        async let serving: Void = server.run()
        async let standing: Void = stand.run()
        _ = try await (serving, standing)
        withExtendedLifetime(signals) {}
    }
}
