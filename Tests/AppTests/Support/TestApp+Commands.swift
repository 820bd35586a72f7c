import Foundation
@testable import App

extension TestApp {
    /// The environment of `siwa serve` for this app: its database, client ids, stand-in and Apple key, so a
    /// command sees what the running server sees.
    var operatorEnvironment: [String: String] {
        let configuration = server.configuration
        var environment = [
            "DATABASE_PATH": configuration.databasePath, "APPLE_BASE_URL": configuration.appleBaseURL,
            "IOS_APPLICATION_IDENTIFIER": configuration.iosClientIDs.joined(separator: ","), "LOG_LEVEL": "warning",
        ]
        environment["DATABASE_URL"] = configuration.databaseURL?.uri
        if !configuration.databasePreparedStatements { environment["DATABASE_PREPARED_STATEMENTS"] = "off" }
        environment["WEBSITE_APPLICATION_IDENTIFIER"] = configuration.websiteClientID
        environment["SIWA_REDIRECT_URL"] = configuration.redirectURL
        if let key = configuration.appleKey {
            environment["APPLE_TEAM_ID"] = key.teamID
            environment["APPLE_KEY_ID"] = key.keyID
            environment["APPLE_PRIVATE_KEY_PATH"] = key.privateKeyPath
        }
        environment["SIWA_ENCRYPTION_KEY"] = configuration.encryptionKey.map { $0.map { String(format: "%02x", $0) }.joined() }
        return environment
    }

    /// Runs `siwa <arguments>` to its end with `operatorEnvironment`, overridden by `extra`.
    func command(_ arguments: [String], _ extra: [String: String] = [:]) async throws -> SiwaProcess {
        try await SiwaProcess.run(arguments, environment: operatorEnvironment.merging(extra) { $1 }, directory: directory)
    }
}
