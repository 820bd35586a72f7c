@testable import FakeApple
import Foundation
import Storage
import TestSupport
@testable import App

/// Stored Apple tokens in bulk, and Apple's chores run as the commands run them, for `AppleChoresTests`.
extension TestApp {
    /// Stores `count` users, each with an Apple refresh token the stand-in honours (`seededRefreshToken`).
    func seedAppleTokens(_ count: Int, tag: String = "seed") async throws {
        try await server.seedAppleTokens(count, tag: tag, token: FakeAppleServer.seededRefreshToken(subject:))
    }

    /// Makes every stored Apple token due now, as a day after the sign-ins that stored them (a sign-in's token is
    /// first due a day later).
    func makeAppleTokensDue() async throws {
        try await server.services.database.write(SQL("UPDATE apple_tokens SET due_at = ?",
                                                     [Date(timeIntervalSince1970: 0)]))
    }

    /// Runs `kind` in process, as `siwa apple <kind>` would, on this app's database and Apple.
    func runChore(_ kind: AppleChoreKind, clock: @escaping @Sendable () -> Date = Date.init,
                  configure: (inout Configuration) -> Void = { _ in }) async throws -> ChoreReport {
        var configuration = server.configuration
        configure(&configuration)
        let environment = OperatorEnvironment(configuration: configuration)
        return try await AppleTokenLifecycle.runChore(kind, environment: environment, clock: clock)
    }

    /// Seeds `count` stored tokens, puts Apple 50 ms away (so that the run is still going when the test acts on it),
    /// starts `siwa apple validate-tokens` as a process with `bound` calls in flight, and returns once it has
    /// checked at least `checked` tokens (or a minute has passed).
    func spawnValidation(seeding count: Int, bound: Int, untilChecked checked: Int) async throws -> SiwaProcess {
        try await seedAppleTokens(count)
        await apple.setTokenLatency(0.05)
        let run = try SiwaProcess(["apple", "validate-tokens"],
                                  environment: operatorEnvironment.merging(["APPLE_MAX_CONNECTIONS": "\(bound)"]) { $1 },
                                  directory: directory)
        let deadline = ContinuousClock.now + .seconds(60)
        while try await checkedTokens() < checked, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        return run
    }

    /// Stored tokens Apple was asked about and honoured (`checked_at` set).
    func checkedTokens() async throws -> Int {
        try await server.services.database.readOne(SQL("SELECT COUNT(*) FROM apple_tokens WHERE checked_at IS NOT NULL")) {
            try $0[0] as Int
        } ?? 0
    }

    /// Revokes the one stored Apple refresh token at the stand-in, as the user's "Stop using Apple ID" would.
    func revokeStoredAppleToken() async throws {
        let services = server.services
        guard let stored = try await services.database.readOne(SQL("SELECT refresh_token FROM apple_tokens"), {
            try $0[0] as [UInt8]
        }), let sealer = services.lifecycle.sealer, let client = services.lifecycle.client else { throw CancellationError() }
        try await client.revoke(token: try sealer.open(stored, clientID: TestApp.iosClientID), clientID: TestApp.iosClientID)
    }
}
