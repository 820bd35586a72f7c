import Foundation

/// `siwa apple transfer export --to TEAM_ID [--out FILE]`, run by the sending team (Apple's "Transferring your apps
/// and users to another team", "Generate the transfer identifier").
extension AppleTransfer {
    /// Lines of the transfer file read from the database at a time.
    static let filePageSize = 500

    /// Asks Apple for a transfer identifier for every user not holding one for `target`, stores each as it comes,
    /// and, when every user has one, writes them to `out` (JSON Lines, atomically).
    /// - Parameters:
    ///   - target: the receiving team's id, checked before anything else.
    ///   - out: the file to write; its new file is created before Apple is asked anything, so a path that cannot be
    ///     written stops the command with nothing changed.
    ///   - clock: the time the client secrets and access tokens are judged by.
    /// - Returns: the lines to print and the exit status: 0 when every user holds an identifier for `target`.
    /// - Throws: `OperatorError` for a bad `target` or `out`, a missing configuration, or Apple's `invalid_client`.
    package static func export(to target: String, out: String?, environment: OperatorEnvironment,
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
            return try await transfer.export(to: target, file: file, throttledBefore: throttled)
        }
    }

    private func export(to target: String, file: TransferFileWriter?, throttledBefore: Int) async throws
        -> ChoreReport
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
            if tally.isComplete {
                let written = try await write(file, target: target)
                lines.append("Wrote \(written) transfer identifiers for team \(target) to \(file.path).")
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
