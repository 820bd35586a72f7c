import AppleID
import Foundation

/// `siwa apple transfer import [FILE]`, run by the receiving team (Apple's "Bringing new apps and users into your
/// team", "Exchange identifiers").
extension AppleTransfer {
    /// Pairs of a transfer file stored per write.
    static let storeBatch = 500
    /// Unknown line numbers listed by name in the report; the rest are counted.
    static let listedLines = 20

    /// Exchanges every stored transfer identifier for this team, of users not migrated yet, for this team's `sub`,
    /// e-mail and private-relay flag, and replaces them in place: user ids, bearer tokens and sessions stay. With
    /// `file`, the sender's pairs are stored first on the users they name (a copy of the sender's database). Then
    /// Apple's notifications kept for the `sub`s now given are applied (`AppleNotificationRepository+Held`).
    /// - Returns: the lines to print and the exit status: 0 when every user was migrated and every line of `file`
    ///   named a user.
    /// - Throws: `OperatorError` for a malformed `file` (naming the line), a missing configuration, or Apple's
    ///   `invalid_client`, each before anything changed.
    package static func importIdentifiers(from file: String?, environment: OperatorEnvironment,
                                          clock: @escaping @Sendable () -> Date = Date.init) async throws -> ChoreReport {
        let lines: [TransferFile.Line]?
        do {
            lines = try file.map(TransferFile.read)
        } catch let malformed as TransferFile.Malformed {
            throw OperatorError("\(malformed)")
        }
        var (report, unknown) = try await with(environment, clock: clock) { transfer in
            // The file's pairs are stored before the exchanges: Apple's refusal of the key at the migration endpoint
            // must come first (found by an audit, an `invalid_client` there left every pair stored).
            // Without a file and with nothing to import (a run again, or after the 60-day window) nothing asks
            // Apple, whose migration endpoint may no longer answer. Found by an audit.
            var nothingDue = false
            if lines == nil { nothingDue = try await transfer.repository.countToImport(team: transfer.teamID) == 0 }
            let (throttled, answer) = nothingDue ? (0, nil)
                : try await transfer.checkCredentials(probe: lines?.first?.transferSub)
            var unknown: [Int] = []
            if let lines { unknown = try await transfer.store(lines) }
            var report = try await transfer.importStored(throttledBefore: throttled, probed: answer)
            // Apple's account deletions and revocations for the `sub`s just given, kept since they came.
            let applied = try await AppleNotificationRepository(pool: transfer.repository.pool, now: clock).applyHeld()
            if applied > 0 {
                report.summary += "\n\(applied) Apple notification\(applied == 1 ? "" : "s") (account-delete, "
                    + "consent-revoked) kept for users not yet imported applied"
            }
            return (report, unknown)
        }
        if let file, !unknown.isEmpty {
            let listed = unknown.prefix(listedLines).map(String.init).joined(separator: ", ")
            let more = unknown.count > listedLines ? " and \(unknown.count - listedLines) more" : ""
            let (noun, verb) = unknown.count == 1 ? ("line", "names") : ("lines", "name")
            report.summary += "\n\(unknown.count) \(noun) of \(file) \(verb) no user of this database: \(noun) \(listed)\(more)"
            report.exitStatus = 1
        }
        return report
    }

    /// Stores the file's identifiers on the users they name; returns the numbers of the lines that name none.
    private func store(_ lines: [TransferFile.Line]) async throws -> [Int] {
        var unknown: [Int] = []
        var start = 0
        while start < lines.count {
            let batch = lines[start..<min(start + Self.storeBatch, lines.count)]
            start += Self.storeBatch
            var pairs: [(userID: UUID, transferSub: String)] = []
            var numbers: [Int] = []
            for line in batch {
                guard let id = UUID(uuidString: line.userID) else {
                    unknown.append(line.number)
                    continue
                }
                pairs.append((id, line.transferSub))
                numbers.append(line.number)
            }
            let found = try await repository.storeIdentifiers(pairs, team: teamID, at: clock())
            unknown += zip(numbers, found).filter { !$0.1 }.map(\.0)
        }
        return unknown.sorted()
    }

    /// Exchanges each stored identifier still to import; `probed`, Apple's answer for one of them already, is
    /// taken as it is.
    private func importStored(throttledBefore: Int, probed: ProbeAnswer?) async throws -> ChoreReport {
        var tally = TransferTally(label: "import into \(teamID)", doneWord: "migrated")
        tally.othersWhoDoUsers = "another run or a sign-in"
        tally.throttledRetries = throttledBefore
        let team = teamID
        tally.due = try await repository.countToImport(team: team)
        let repository = self.repository, client = self.client, tokens = self.tokens, clock = self.clock
        let run = makeRun(page: { after, limit in
            try await repository.importPage(team: team, after: after, limit: limit)
        }, settle: { [self] item in
            let moved: AppleAuthClient.MigratedUser
            if let probed, probed.identifier == item.identifier {
                moved = probed.user
            } else {
                let clientID = clientID(for: item.clientID)
                moved = try await client.exchangeTransfer(item.identifier, clientID: clientID,
                                                          accessToken: try await tokens.token(for: clientID))
            }
            return try await repository.recordMove(userID: item.userID, sub: moved.sub, email: moved.email,
                                                   isPrivateEmail: moved.isPrivateEmail, at: clock()) != .gone
        })
        tally = await runStoppable(run, tally)
        return ChoreReport(summary: tally.summary, exitStatus: tally.isComplete ? 0 : 1)
    }
}
