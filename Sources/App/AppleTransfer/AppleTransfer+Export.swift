import Foundation

/// `siwa apple transfer export --to TEAM_ID [--out FILE [--allow-missing]]`, run by the sending team (Apple's
/// "Transferring your apps and users to another team", "Generate the transfer identifier").
extension AppleTransfer {
    /// Lines of the transfer file read from the database at a time.
    static let filePageSize = 500

    /// Asks Apple for a transfer identifier for every user not holding one for `target`, stores each as it comes,
    /// and, when every user has one, writes them to `out` (JSON Lines, atomically).
    /// - Parameters:
    ///   - target: the receiving team's id, checked before anything else.
    ///   - out: the file to write; its new file is created before Apple is asked anything, so a path that cannot be
    ///     written stops the command with nothing changed.
    ///   - allowMissing: write `out` when the run ended with users Apple refused an identifier (Apple answers
    ///     `invalid_request` for good for some users who revoked access before the transfer), leaving them out; not
    ///     after a run that was stopped. The exit status is still 1.
    ///   - clock: the time the client secrets and access tokens are judged by.
    /// - Returns: the lines to print and the exit status: 0 when every user holds an identifier for `target`.
    /// - Throws: `OperatorError` for a bad `target` or `out`, a missing configuration, or Apple's `invalid_client`.
    package static func export(to target: String, out: String?, allowMissing: Bool = false,
                               environment: OperatorEnvironment,
                               clock: @escaping @Sendable () -> Date = Date.init) async throws -> ChoreReport {
        guard isTeamID(target) else {
            throw OperatorError("--to must be the receiving team's id: 10 capital letters or digits, not \(target)")
        }
        return try await with(environment, clock: clock) { transfer in
            guard target != transfer.teamID else {
                throw OperatorError("--to \(target) is this team (APPLE_TEAM_ID); give the receiving team's id")
            }
            let file = try out.map(TransferFileWriter.init(path:))
            // Nothing to export (a run again after a complete one) asks Apple for nothing, not even a token.
            let nothingDue = try await transfer.repository.countToExport(target: target) == 0
            let throttled = nothingDue ? 0 : try await transfer.checkCredentials().throttled
            return try await transfer.export(to: target, file: file, allowMissing: allowMissing,
                                             throttledBefore: throttled)
        }
    }

    private func export(to target: String, file: TransferFileWriter?, allowMissing: Bool, throttledBefore: Int)
        async throws -> ChoreReport
    {
        var tally = TransferTally(label: "export to \(target)", doneWord: "exported")
        tally.throttledRetries = throttledBefore
        tally.due = try await repository.countToExport(target: target)
        let repository = self.repository, client = self.client, tokens = self.tokens
        let run = makeRun(page: { after, limit in
            try await repository.exportPage(target: target, after: after, limit: limit)
        }, settle: { [self] item in
            let clientID = clientID(for: item.clientID)
            let transferSub = try await client.transferIdentifier(
                sub: item.identifier, target: target, clientID: clientID,
                accessToken: try await tokens.token(for: clientID))
            return try await repository.recordIdentifier(transferSub, target: target, userID: item.userID, at: clock())
        })
        tally = await runStoppable(run, tally)
        var lines = [tally.summary]
        if let file {
            if tally.isComplete || (allowMissing && tally.ranToTheEnd) {
                let written = try await write(file, target: target)
                lines.append("Wrote \(written) transfer identifiers for team \(target) to \(file.path).")
                if !tally.isComplete {
                    lines.append("\(tally.failedCount) user(s) without an identifier were left out (--allow-missing): "
                        + "this file cannot move them")
                }
            } else if tally.ranToTheEnd, tally.failed.reasons.allSatisfy(ChoreRun.isApplesRefusal) {
                // Apple's refusal of a user is not a fault a run again waits out (found by a black-box review: the
                // line said to run again, for ever).
                lines.append("\(file.path) was not written: Apple refused \(tally.failedCount) user(s) an identifier, "
                    + "which running again may not change (Apple refuses some users who revoked access before the "
                    + "transfer); --allow-missing writes the file without them")
            } else {
                lines.append("\(file.path) was not written: some users still lack an identifier; run the export again.")
            }
        }
        return ChoreReport(summary: lines.joined(separator: "\n"), exitStatus: tally.isComplete ? 0 : 1)
    }

    /// Writes every stored identifier for `target` to `file` and puts it in place; returns how many.
    private func write(_ file: TransferFileWriter, target: String) async throws -> Int {
        var written = 0
        var after = TransferRepository.start
        while true {
            let page = try await repository.identifiers(target: target, after: after, limit: Self.filePageSize)
            guard let last = page.last else { break }
            for pair in page { try file.append(try TransferFile.line(userID: pair.userID, transferSub: pair.transferSub)) }
            written += page.count
            after = last.userID
        }
        try file.commit()
        return written
    }
}
