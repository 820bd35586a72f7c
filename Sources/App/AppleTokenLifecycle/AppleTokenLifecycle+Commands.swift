import AppleID
import Foundation
import HTTPCore
import Logging
import Storage

/// The lifecycle's chores run from the command line: `siwa apple validate-tokens` and `siwa apple retry-revocations`.
extension AppleTokenLifecycle {
    /// Runs chore `kind` once over what is due: a live line on a terminal, then the summary line (returned, with
    /// the exit status in it). SIGTERM or SIGINT stops it cleanly: calls in flight end, claimed tokens not done
    /// are handed back, due for the next run.
    /// - Parameters:
    ///   - environment: the configuration, and the database it names.
    ///   - clock: what judges which tokens are due (tests move it; client secrets keep the real time).
    /// - Throws: `OperatorError` when the lifecycle is not configured or `DATABASE_PATH` names no database.
    package static func runChore(_ kind: AppleChoreKind, environment: OperatorEnvironment,
                                 clock: @escaping @Sendable () -> Date = Date.init) async throws -> ChoreReport {
        let (lifecycle, database, logger) = try await open(environment)
        let progress = ChoreProgress.onTerminal()
        let task = Task { await lifecycle.run(kind, logger: logger, progress: progress, clock: clock) }
        let signals = ShutdownSignals.install { task.cancel() }
        let tally = await task.value
        withExtendedLifetime(signals) {}
        await database.close()
        guard let tally else { throw notConfigured(lifecycle.disabledReason ?? "not configured") }
        return ChoreReport(summary: tally.summary, exitStatus: tally.exitStatus)
    }

    /// The lifecycle on the configured database. Like every operator's command it never creates a database: without
    /// a usable Apple key, or when `DATABASE_PATH` names no file, it refuses before anything is opened, so a chore run in
    /// the wrong place leaves no database and no refresh-token key behind. An existing database is migrated as the
    /// server migrates it at start (a chore run from cron after an upgrade, before the server restarts). The caller
    /// closes the database it returns, which leaves a SQLite file as it was found (`leavesTheFile`): one file, if
    /// no server had it open.
    /// - Throws: `OperatorError` naming what is not configured, the missing database, or the missing or other
    ///   refresh-token key (`RefreshTokenKeyCheck`), with the database closed.
    private static func open(_ environment: OperatorEnvironment) async throws
        -> (AppleTokenLifecycle, any DatabaseClient, Logger)
    {
        let configuration = environment.configuration
        guard let key = configuration.appleKey else { throw notConfigured(missingKeyReason) }
        // A key that cannot be used is refused before the database is opened, migrated or given a refresh-token
        // key, in one line. Found by a review: it was found only after all three.
        do {
            _ = try ClientSecret.load(teamID: key.teamID, keyID: key.keyID, privateKeyPath: key.privateKeyPath)
        } catch let error as ClientSecretError {
            throw notConfigured("\(error)")
        }
        if configuration.databaseURL == nil { _ = try environment.existingDatabasePath() }
        var logger = Logger(label: "siwa.apple")
        logger.logLevel = configuration.logLevel
        let database = try await AppMigrations.openAndMigrate(configuration, logger: logger, leavesTheFile: true)
        do {
            try await RefreshTokenKeyCheck.operatorCheck(configuration, database: database)
            let http = HTTPClient(configuration: configuration.appleClientConfiguration)
            let keys = AppleKeySet.apple(configuration: configuration, database: database, client: http,
                                         logger: logger, clock: Date.init)
            let lifecycle = AppleTokenLifecycle(
                configuration: configuration, appleTokens: AppleTokenRepository(pool: database),
                pending: PendingRevocationRepository(pool: database), keys: keys, http: http, logger: logger,
                clock: Date.init, saysWhereTheKeyIs: false
            )
            guard lifecycle.isEnabled else { throw notConfigured(lifecycle.disabledReason ?? "not configured") }
            return (lifecycle, database, logger)
        } catch {
            await database.close()
            throw error
        }
    }

    static func notConfigured(_ reason: String) -> OperatorError {
        OperatorError("Apple token lifecycle is not configured: \(reason)")
    }
}
