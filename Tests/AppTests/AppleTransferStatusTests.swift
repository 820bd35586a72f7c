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

    /// The first import's time as another tool could have written it: what is not whole seconds reads as no import,
    /// and the largest whole numbers count as they are. Found by a review: `1e300`, `inf` and `nan` made the command
    /// trap. Run as a process, so a trap fails the test instead of ending the suite.
    @Test(arguments: [("1e300", ": not started"), ("-1e300", ": not started"), ("inf", ": not started"),
                      ("nan", ": not started"), ("\(Int.max)", " at most (the first user moved here"),
                      ("\(Int.min)", ": 0: it closed")])
    func aFirstImportSettingOfAnyValueIsNoCrash(_ value: String, _ window: String) async throws {
        try await TestApp.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("siwa.sqlite").path
            let environment = ["DATABASE_PATH": path, "LOG_LEVEL": "warning"]
            #expect(try await SiwaProcess.run(["migrate"], environment: environment, directory: directory).status == 0)
            try Database(path: path).execute(sql: "INSERT INTO shared_settings (name, value) VALUES (?, ?)",
                                             arguments: [TransferRepository.firstImportSetting, value])
            let status = try await SiwaProcess.run(["apple", "transfer", "status"], environment: environment,
                                                   directory: directory)
            #expect(status.status == 0, "\(status.output.prefix(300))")
            #expect(status.output.contains(window), "\(status.output.prefix(400))")
        }
    }
}

/// The transfer commands' summary line.
struct TransferTallyTests {
    /// A page of users the database failed to give ends the run: the line says how many it left, still to do (found
    /// by an audit: after a PostgreSQL restart it accounted for 353 of 1,907 users and said nothing of the rest).
    @Test func aFailedPageSaysHowManyUsersWereNotReached() {
        var tally = TransferTally(label: "import into RECVTEAM01", doneWord: "migrated")
        tally.due = 1_907
        tally.done = 331
        tally.failed.add("database", count: 21)
        tally.pageFailures = 1
        #expect(!tally.isComplete && !tally.ranToTheEnd, "--allow-missing writes no file missing the users not read")
        // The counts add up to what was due: the failed page is no user's.
        #expect(tally.summary == "transfer import into RECVTEAM01: 1907 due, 331 migrated, 0 throttled and retried, "
            + "21 failed (database: 21), 0 interrupted, 1555 not reached (reading them failed; still to do), in 0.0 s")
        tally.pageFailures = 0
        #expect(!tally.summary.contains("not reached"), "without a failed page, others did the rest")
        // And the line says so, so that it adds up (found by a black-box review: two exports at once).
        tally.othersWhoDoUsers = "another run or a sign-in"
        #expect(tally.summary == "transfer import into RECVTEAM01: 1907 due, 331 migrated, "
            + "1555 done meanwhile by another run or a sign-in, 0 throttled and retried, 21 failed (database: 21), "
            + "0 interrupted, in 0.0 s")
    }
}
