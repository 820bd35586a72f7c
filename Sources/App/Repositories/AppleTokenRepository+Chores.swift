import Foundation
import Storage

/// What `siwa apple validate-tokens` records about each stored token it checked.
extension AppleTokenRepository {
    /// A token may be checked with Apple this often, at most: Apple asks for no more than one validation a day
    /// per token (Sign in with Apple REST API, "Generate and validate tokens") and throttles clients that do more.
    static let checkInterval: TimeInterval = 24 * 60 * 60

    /// How much earlier than a day after its check a token may be due again, so that the next daily run takes it:
    /// the length of the run that checked it. A run begun a day after this one (a cron job at the same time,
    /// `siwa serve`'s schedule) then takes every token this one checked, as README "Apple's token lifecycle" says
    /// (once a day). Found by a review: due a day after their answer, after the next day's run had begun, tokens were
    /// checked every other day.
    static let dailyRunAllowance: TimeInterval = 60 * 60
    /// How much earlier the next daily run may begin than a day after this one: a cron job's start varies.
    static let dailyStartSlack: TimeInterval = 60

    /// When a token checked at `checkedAt` by a run begun at `runStartedAt` is next due: a day after the run began
    /// (less `dailyStartSlack`), but never more than `dailyRunAllowance` before a day after its check.
    static func nextDue(checkedAt: Date, runStartedAt: Date) -> Date {
        max(runStartedAt.addingTimeInterval(-dailyStartSlack), checkedAt.addingTimeInterval(-dailyRunAllowance))
            .addingTimeInterval(checkInterval)
    }

    /// Apple honoured the token at `date`, in the run begun at `runStartedAt`: it is next due a day later
    /// (`nextDue`).
    func recordValid(id: UUID, at date: Date, runStartedAt: Date) async throws {
        try await pool.write(SQL("UPDATE apple_tokens SET checked_at = ?, due_at = ?, claimed_by = NULL WHERE id = ?",
                                 [date, Self.nextDue(checkedAt: date, runStartedAt: runStartedAt), id]))
    }

    /// Apple no longer honours the token (`invalid_grant`): it is marked revoked, and its user's bearer tokens and
    /// sessions end in the same transaction, as a `consent-revoked` notification ends them; the account stays.
    ///
    /// Only the user's current grant ends them. A token a sign-in replaced while it was being checked is gone, and
    /// nothing more happens. A token older than another of the user's that Apple has not refused (another client
    /// id, signed in after a revocation) is only marked: the newer grant decides when its own day comes.
    ///
    /// A token issued to the previous team before its user moved to this one (README "Moving the app to another
    /// team": TN3159 says nothing of such tokens, so they are kept until Apple answers) is only dropped: the move,
    /// not the user, ended it, so their bearer tokens and sessions go on.
    func recordRevokedByApple(id: UUID, userID: UUID, at date: Date) async throws {
        let issuedBeforeMove = """
            EXISTS (SELECT 1 FROM users JOIN apple_tokens ON apple_tokens.user_id = users.id
                WHERE apple_tokens.id = ? AND users.transferred_at IS NOT NULL
                    AND apple_tokens.created_at < users.transferred_at)
            """
        let endsTheGrant = """
            EXISTS (SELECT 1 FROM apple_tokens WHERE id = ?)
            AND NOT EXISTS (SELECT 1 FROM apple_tokens this JOIN apple_tokens newer ON newer.user_id = this.user_id
                WHERE this.id = ? AND newer.id <> this.id AND newer.created_at > this.created_at
                    AND newer.revoked_at IS NULL)
            AND NOT \(issuedBeforeMove)
            """
        try await pool.write([
            SQL("DELETE FROM tokens WHERE user_id = ? AND \(endsTheGrant)", [userID, id, id, id]),
            SQL("DELETE FROM sessions WHERE user_id = ? AND \(endsTheGrant)", [userID, id, id, id]),
            SQL("DELETE FROM apple_tokens WHERE id = ? AND \(issuedBeforeMove)", [id, id]),
            SQL("UPDATE apple_tokens SET revoked_at = ?, checked_at = ? WHERE id = ?", [date, date, id]),
        ])
    }
}
