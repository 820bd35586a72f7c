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

    /// The lifecycle on the configured database; without an Apple key it refuses before the database is opened, so
    /// a chore run in the wrong place leaves no database behind.
    /// - Throws: `OperatorError` naming what is not configured.
    private static func open(_ configuration: Configuration) async throws -> (AppleTokenLifecycle, Logger) {
        guard configuration.appleKey != nil else { throw notConfigured(missingKeyReason) }
        var logger = Logger(label: "siwa.apple")
        logger.logLevel = configuration.logLevel
        let database = try await AppMigrations.openAndMigrate(configuration, logger: logger)
        let http = HTTPClient(configuration: configuration.appleClientConfiguration)
        let keys = AppleKeySet.apple(configuration: configuration, database: database, client: http, logger: logger,
                                     clock: Date.init)
        let lifecycle = AppleTokenLifecycle(
            configuration: configuration, appleTokens: AppleTokenRepository(pool: database),
            pending: PendingRevocationRepository(pool: database), keys: keys, http: http, logger: logger,
            clock: Date.init
        )
        guard lifecycle.isEnabled else { throw notConfigured(lifecycle.disabledReason ?? "not configured") }
        return (lifecycle, logger)
    }

    private static func notConfigured(_ reason: String) -> OperatorError {
        OperatorError("Apple token lifecycle is not configured: \(reason)")
    }
}
