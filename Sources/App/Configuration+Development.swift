import Foundation
import Web

extension Configuration {
    /// The bundle id the stand-in's tokens are minted for in development (`siwa mint --aud dev.siwa.ios`).
    package static let developmentIOSClientID = "dev.siwa.ios"
    /// The Services ID of the development web flow.
    package static let developmentWebsiteClientID = "dev.siwa.web"

    /// The variables `siwa dev` takes from the environment: how the server behaves, not how it is wired to the
    /// stand-in (addresses, database, client ids, Apple's URL and key are `siwa dev`'s own).
    package static let developmentVariables = [
        "LOG_LEVEL", WebMode.variable, "TRUST_PROXY", "MAX_BODY_SIZE", "BODY_TIMEOUT", "MAX_CONNECTIONS",
        "MAX_CONNECTIONS_PER_IP", "SHUTDOWN_GRACE_PERIOD", "SIGNIN_RATE_LIMIT", "SIGNIN_RATE_BURST", "METRICS_TOKEN",
        "APPLE_MAX_CONNECTIONS", "APPLE_TIMEOUT", "APPLE_CHORES_INTERVAL",
    ]

    /// Variables `siwa serve` reads that `siwa dev` wires itself or does without, whose being set in the environment
    /// the start names: TLS, the database, Apple's URL and key, the client ids. Found by a black-box review: with
    /// `TLS_CERT_PATH` and `TLS_KEY_PATH` set, `siwa dev` served plain HTTP without a word.
    package static let variablesDevelopmentIgnores = [
        "TLS_CERT_PATH", "TLS_KEY_PATH", "DATABASE_URL", "DATABASE_PATH", "APPLE_BASE_URL", "APPLE_TEAM_ID",
        "APPLE_KEY_ID", "APPLE_PRIVATE_KEY_PATH", "SIWA_ENCRYPTION_KEY", "IOS_APPLICATION_IDENTIFIER",
        "WEBSITE_APPLICATION_IDENTIFIER", "SIWA_REDIRECT_URL",
    ]

    /// Those of `variablesDevelopmentIgnores` set (not empty) in `environment`, in that order.
    package static func variablesDevelopmentIgnores(in environment: [String: String]) -> [String] {
        variablesDevelopmentIgnores.filter { !(environment[$0] ?? "").isEmpty }
    }

    /// What `siwa dev` serves with: the server and the Apple stand-in on `hostname`, configured for each other, so a
    /// fresh checkout signs in on `http://127.0.0.1:8080/login` with no Apple account. The variables of
    /// `developmentVariables` in `environment` still apply, checked as `siwa serve` checks them.
    /// - Throws: `ConfigurationError` naming a variable of those that is malformed.
    package static func development(hostname: String, port: Int, applePort: Int, databasePath: String,
                                    environment: [String: String] = ProcessInfo.processInfo.environment)
        throws -> Configuration
    {
        var configuration = try Configuration(Environment(environment.filter { developmentVariables.contains($0.key) }))
        configuration.hostname = hostname
        configuration.port = port
        configuration.databasePath = databasePath
        configuration.iosClientIDs = [developmentIOSClientID]
        configuration.websiteClientID = developmentWebsiteClientID
        let host = Configuration.urlHost(hostname)
        configuration.redirectURL = "http://\(host):\(port)/login/siwa/callback"
        configuration.appleBaseURL = "http://\(host):\(applePort)"
        configuration.resourcesPath = Configuration.locateResources(configuration.resourcesPath)
        return configuration
    }
}

extension Configuration {
    /// `hostname` as a URL writes it: an IPv6 literal in brackets (RFC 3986 §3.2.2).
    package static func urlHost(_ hostname: String) -> String { hostname.contains(":") ? "[\(hostname)]" : hostname }
}
