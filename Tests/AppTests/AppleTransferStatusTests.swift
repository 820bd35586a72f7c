import Foundation
import Storage
import TestSupport
import Testing
@testable import App

/// `siwa apple transfer status`'s count of the 60-day window, from the first user's move here, at any moment.
@Suite(.timeLimit(.minutes(2)))
struct AppleTransferStatusTests {
    @Test func theWindowCountsDownFromTheFirstImportAndCloses() async throws {
        try await TestApp.withTwoTeams { app in
            try await app.seedUsers(3)
            #expect(try await app.command(["apple", "transfer", "export", "--to", TestApp.receivingTeamID]).status == 0)
            let environment = try OperatorEnvironment(dotEnvPath: app.directory.appendingPathComponent("none.env").path,
                                                      processEnvironment: app.operatorEnvironment)
            let before = try await AppleTransfer.status(environment: environment)
            #expect(before == """
                users: 3
                exported (hold a transfer identifier): 3
                migrated: 0
                still to migrate: 3
                days left in the 60-day window: not started (no user moved here yet)
                """)
            #expect(try await app.command(["apple", "transfer", "import"], app.receivingTeam).status == 0)
            let first = try #require(try await TransferRepository(pool: app.server.services.database).firstImport())
            let day = TimeInterval(86_400)
            for (offset, expected) in [(0.5, "60"), (10.5, "50"), (59.5, "1")] {
                let status = try await AppleTransfer.status(environment: environment,
                                                            now: first.addingTimeInterval(offset * day))
                #expect(status.contains("migrated: 3\nstill to migrate: 0\ndays left in the 60-day window: \(expected) at most ("),
                        "\(status)")
            }
            let closed = try await AppleTransfer.status(environment: environment, now: first.addingTimeInterval(61 * day))
            #expect(closed.contains("days left in the 60-day window: 0: it closed"), "\(closed)")
        }
    }
}
