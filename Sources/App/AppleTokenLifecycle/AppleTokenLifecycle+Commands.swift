import Foundation
import HTTPCore
import Logging
import Storage

/// The lifecycle's chores run from the command line: `siwa apple validate-tokens` (daily, as Apple suggests) and
/// `siwa apple retry-revocations`.
extension AppleTokenLifecycle {
    /// What a run did, printed by the command.
    package struct Report: Sendable, CustomStringConvertible {
        package var lines: [String]
        package var description: String { lines.joined(separator: "\n") }
    }

    /// Checks every stored refresh token with Apple and marks the revoked ones.
    package static func validateTokens(configuration: Configuration) async throws -> Report {
        let (lifecycle, logger) = try await open(configuration)
        let result = try await lifecycle.validateStoredTokens(logger: logger)
        return Report(lines: ["valid: \(result.valid)", "revoked (marked): \(result.revoked)", "failed: \(result.failed)"])
    }

    /// Tries every queued revocation again.
    package static func retryRevocations(configuration: Configuration) async throws -> Report {
        let (lifecycle, logger) = try await open(configuration)
        let result = try await lifecycle.retryPendingRevocations(logger: logger)
        return Report(lines: ["revoked: \(result.revoked)", "still failing: \(result.failed)"])
    }

    private static func open(_ configuration: Configuration) async throws -> (AppleTokenLifecycle, Logger) {
        var logger = Logger(label: "siwa.apple")
        logger.logLevel = configuration.logLevel
        let database = try await AppMigrations.openAndMigrate(configuration, logger: logger)
        let http = HTTPClient(configuration: HTTPClient.Configuration(extraCAFile: configuration.extraCAFile))
        let keys = AppleKeySet.apple(configuration: configuration, database: database, client: http, logger: logger,
                                     clock: Date.init)
        let lifecycle = AppleTokenLifecycle(
            configuration: configuration, appleTokens: AppleTokenRepository(pool: database),
            pending: PendingRevocationRepository(pool: database), keys: keys, http: http, logger: logger,
            clock: Date.init
        )
        guard lifecycle.isEnabled else {
            throw AppleTokenLifecycleError.notConfigured(lifecycle.disabledReason ?? "not configured")
        }
        return (lifecycle, logger)
    }
}

/// Why a lifecycle command cannot run.
package enum AppleTokenLifecycleError: Error, CustomStringConvertible {
    case notConfigured(String)

    package var description: String {
        switch self {
        case .notConfigured(let reason): "Apple token lifecycle is not configured: \(reason)"
        }
    }
}
