import Foundation
import Logging

/// What one run of a chore did: counts by outcome, throttled calls waited out and retried, and how long it took.
/// `summary` is the one line a log or cron mail shows; `exitStatus` what the command exits with.
struct ChoreTally: Sendable, Equatable {
    var chore: AppleChoreKind
    /// Rows due when the run began (other runs may take some of them).
    var due = 0
    var valid = 0
    var revoked = 0
    /// Calls Apple throttled or failed (429, 5xx) that were waited out and tried again.
    var throttledRetries = 0
    /// Failures by reason.
    var failed = FailureReasons()
    var interrupted = 0
    /// Rows another run held under its lease when this one ended: a run still working, or one killed, whose rows are
    /// due again when its lease lapses.
    var heldByOtherRuns = 0
    var seconds: Double = 0

    init(chore: AppleChoreKind) { self.chore = chore }

    var done: Int { valid + revoked + failedCount }
    var failedCount: Int { failed.total }

    /// The reasons that are the operator's to fix: Apple refuses the server's own credentials.
    static let credentialFailures: Set<String> = ["apple: invalid_client", "apple: unauthorized_client"]

    /// The level `siwa serve` logs the summary at: `notice` when nothing failed, `error` when Apple refused the
    /// server's key (every later call fails too, and no deletion's token is revoked), else `warning`. Found by an
    /// audit: every summary was `notice`, which an alert on warnings never sees.
    var logLevel: Logger.Level {
        if failedCount == 0 && claimFailures == 0 { return .notice }
        return failed.reasons.contains(where: Self.credentialFailures.contains) ? .error : .warning
    }

    mutating func add(_ outcome: ChoreOutcome, throttledRetries: Int = 0) {
        self.throttledRetries += throttledRetries
        switch outcome {
        case .valid: valid += 1
        case .revoked: revoked += 1
        case .failed(let reason): failed.add(reason)
        case .interrupted: interrupted += 1
        }
    }

    /// Claims of a batch the database refused (a full disk, PostgreSQL restarting): no row's failure, so not among
    /// `failed` (found by a black-box review: "3000 due, 467 valid, 46 failed, 2488 not reached" added up to 3001),
    /// but the run ends, and exits 1.
    var claimFailures = 0

    /// Rows due when the run began that it did not reach: another run took them (two instances, an overlapping
    /// cron), a sign-in with a code replaced the token first (it is then due a day later), or, once claiming a batch
    /// failed, the rest, left due.
    var notReached: Int { max(0, due - done - interrupted) }

    /// 0 when everything this run took on was done; 1 when some is left due (failures, a failed claim, or a stop).
    /// Rows other runs took or hold are theirs to finish, so they leave it 0.
    var exitStatus: Int32 { failedCount == 0 && interrupted == 0 && claimFailures == 0 ? 0 : 1 }

    /// One line: `validate-tokens: 120 due, 118 valid, 1 revoked, 3 throttled and retried, 1 failed (unreachable: 1),
    /// 0 interrupted, in 2.4 s`; with `, 40 taken by other runs or replaced by sign-ins` and `, 20 held by other
    /// runs` before the time when other runs shared the work or sign-ins replaced tokens meanwhile, or `, 40 not
    /// reached (claiming them failed; still due)` when the database refused a claim.
    var summary: String {
        var parts = ["\(due) due"]
        if chore == .validateTokens { parts.append("\(valid) valid") }
        parts.append("\(revoked) revoked")
        parts.append("\(throttledRetries) throttled and retried")
        parts.append(failed.summaryPart)
        parts.append("\(interrupted) interrupted")
        if claimFailures > 0 {
            // A failed claim ends the run: what it did not reach is still due, and no other run need have taken it.
            // Found by an audit: on a full disk the summary said every token was "taken by other runs".
            parts.append("\(notReached) not reached (claiming them failed; still due)")
        } else if notReached > 0 {
            parts.append("\(notReached) taken by other runs or replaced by sign-ins")
        }
        if heldByOtherRuns > 0 { parts.append("\(heldByOtherRuns) held by other runs") }
        return "\(chore.rawValue): " + parts.joined(separator: ", ") + ", in " + String(format: "%.1f s", seconds)
    }
}

/// What a chore run printed and how the command exits: 0 when everything due was done, 1 when some is left.
package struct ChoreReport: Sendable, CustomStringConvertible {
    package var summary: String
    package var exitStatus: Int32
    package var description: String { summary }
}
