import Foundation

/// What one run of `siwa apple transfer export` or `import` did: users due, done, throttled calls waited out,
/// failures by reason, users not tried because the run stopped, and how long it took. `summary` is the line the
/// command prints.
struct TransferTally: Sendable, Equatable {
    /// `export to TEAMID` or `import into TEAMID`, for the summary.
    var label: String
    /// What a user done is called: `exported` or `migrated`.
    var doneWord: String
    /// Who else may do a user while the run goes: another run, and for an import a sign-in by `transfer_sub`.
    var othersWhoDoUsers = "another run"
    var due = 0
    var done = 0
    /// Users deleted while the run asked Apple about them: neither done nor failed.
    var gone = 0
    var throttledRetries = 0
    var failed = FailureReasons()
    var interrupted = 0
    /// Pages of users the database failed to give: the run stops there. No user's failure, so not among `failed`
    /// (found by a black-box review of the chores, whose summary added up to one more than was due).
    var pageFailures = 0
    /// Why the run stopped before its end, when Apple's answer ended it (`invalid_client`).
    var stoppedBy: String?
    var seconds: Double = 0

    var failedCount: Int { failed.total }

    /// Users due when the run began that it did not reach: done by another run meanwhile, or, once reading a page
    /// failed, the rest, still to do.
    var notReached: Int { max(0, due - done - gone - failedCount - interrupted) }

    /// Whether the run went through every user due: neither stopped, nor interrupted, nor cut short by a page the
    /// database failed to give (some may have failed).
    var ranToTheEnd: Bool { interrupted == 0 && stoppedBy == nil && pageFailures == 0 }

    /// Whether every user due was done.
    var isComplete: Bool { failedCount == 0 && ranToTheEnd }

    /// `transfer export to ABCDE12345: 120 due, 118 exported, 3 throttled and retried, 2 failed (apple:
    /// invalid_request: 2), 0 interrupted, in 2.4 s`.
    var summary: String {
        var parts = ["\(due) due", "\(done) \(doneWord)", "\(throttledRetries) throttled and retried",
                     failed.summaryPart, "\(interrupted) interrupted"]
        if gone > 0 { parts.insert("\(gone) deleted meanwhile", at: 2) }
        // A failed page ends the run: say how many it left (found by an audit: after a database restart the line
        // accounted for 353 of 1,907 users, and `transfer status` showed 1,576 still to do).
        if pageFailures > 0 { parts.append("\(notReached) not reached (reading them failed; still to do)") }
        // Due at the start, and found done when the run came to them: another run at once (found by a black-box
        // review: two exports at once printed "29 due, 28 exported" and nothing of the 29th).
        if pageFailures == 0, notReached > 0 {
            parts.insert("\(notReached) done meanwhile by \(othersWhoDoUsers)", at: 2)
        }
        if let stoppedBy { parts.append("stopped: \(stoppedBy)") }
        return "transfer \(label): " + parts.joined(separator: ", ") + ", in " + String(format: "%.1f s", seconds)
    }
}
