import CryptoCore
import Foundation
@testable import App

/// One `siwa` command run to its end as a child process, in a folder of its own (no stray `.env`), with only the
/// given environment: what an operator types.
struct SiwaCommand {
    var status: Int32
    /// Standard output and standard error together.
    var output: String

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// Runs `siwa <arguments>`; fails the test when it does not end within `timeout` seconds.
    static func run(_ arguments: [String], environment: [String: String], directory: URL,
                    timeout: TimeInterval = 60) throws -> SiwaCommand {
        let process = try ServerProcess(arguments, environment: environment, directory: directory)
        guard let status = process.waitForExit(timeout: timeout) else {
            throw Failure(description: "siwa \(arguments.joined(separator: " ")) did not end: \(process.log)")
        }
        return SiwaCommand(status: status, output: process.log)
    }

    /// The output's lines, without the empty last one.
    var lines: [String] { output.split(separator: "\n").map(String.init) }

    /// The output parsed as one JSON object.
    func json() throws -> [String: Any] {
        (try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]) ?? [:]
    }
}

extension TestApp {
    /// The environment of `siwa serve` for this app: its database, client ids, stand-in and Apple key, so a
    /// command sees what the running server sees.
    var operatorEnvironment: [String: String] {
        let configuration = server.configuration
        var environment = [
            "DATABASE_PATH": configuration.databasePath, "APPLE_BASE_URL": configuration.appleBaseURL,
            "IOS_APPLICATION_IDENTIFIER": configuration.iosClientIDs.joined(separator: ","), "LOG_LEVEL": "warning",
        ]
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

    /// Runs `siwa <arguments>` with `operatorEnvironment`, overridden by `extra`.
    func command(_ arguments: [String], _ extra: [String: String] = [:]) throws -> SiwaCommand {
        try SiwaCommand.run(arguments, environment: operatorEnvironment.merging(extra) { $1 }, directory: directory)
    }
}
