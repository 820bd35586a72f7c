import Foundation
import Logging
import Web

extension Configuration {
    /// The bundle id the stand-in's tokens are minted for in development (`siwa mint --aud dev.siwa.ios`).
    package static let developmentIOSClientID = "dev.siwa.ios"
    /// The Services ID of the development web flow.
    package static let developmentWebsiteClientID = "dev.siwa.web"

    /// What `siwa dev` serves with: the server and the Apple stand-in on `hostname`, configured for each other, so a
    /// fresh checkout signs in on `http://127.0.0.1:8080/login` with no Apple account. `LOG_LEVEL` and
    /// `SIWA_WEB_MODE` from the environment still apply.
    /// - Throws: `ConfigurationError` for a `SIWA_WEB_MODE` other than `redirect` or `popup`.
    package static func development(hostname: String, port: Int, applePort: Int, databasePath: String,
                                    environment: [String: String] = ProcessInfo.processInfo.environment)
        throws -> Configuration
    {
        var configuration = Configuration()
        configuration.hostname = hostname
        configuration.port = port
        configuration.databasePath = databasePath
        configuration.iosClientIDs = [developmentIOSClientID]
        configuration.websiteClientID = developmentWebsiteClientID
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
}
