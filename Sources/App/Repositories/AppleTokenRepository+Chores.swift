import Foundation
import Storage

/// What `siwa apple validate-tokens` records about each stored token it checked.
extension AppleTokenRepository {
    /// A token may be checked with Apple this often, at most: Apple asks for no more than one validation a day
    /// per token (Sign in with Apple REST API, "Generate and validate tokens") and throttles clients that do more.
    static let checkInterval: TimeInterval = 24 * 60 * 60

    /// Apple honoured the token at `date`: it is next due a day later.
    func recordValid(id: UUID, at date: Date) async throws {
        try await pool.write(SQL("UPDATE apple_tokens SET checked_at = ?, due_at = ? WHERE id = ?",
                                 [date, date.addingTimeInterval(Self.checkInterval), id]))
    }

    /// Apple no longer honours the token (`invalid_grant`): it is marked revoked, and its user's bearer tokens and
    /// sessions end in the same transaction, as a `consent-revoked` notification ends them; the account stays.
    func recordRevokedByApple(id: UUID, userID: UUID, at date: Date) async throws {
        try await pool.write([
            SQL("UPDATE apple_tokens SET revoked_at = ?, checked_at = ? WHERE id = ?", [date, date, id]),
            SQL("DELETE FROM tokens WHERE user_id = ?", [userID]),
            SQL("DELETE FROM sessions WHERE user_id = ?", [userID]),
        ])
    }
}
