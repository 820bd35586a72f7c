import AppleID
import Foundation

/// One chore's dealings with Apple and the database for a claimed token: the call to make (a refresh to validate,
/// a revocation to retry) and what to record of its outcome.
struct AppleChore: Sendable {
    let kind: AppleChoreKind
    let queue: ChoreQueue
    let client: AppleAuthClient
    let sealer: RefreshTokenSealer
    let appleTokens: AppleTokenRepository
    let pending: PendingRevocationRepository
    let clock: @Sendable () -> Date

    /// Why a token could not be opened (the reason in the summary; never the token).
    static let undecryptable = "undecryptable"
    /// Why a queued revocation was given up: its token cannot be opened with the key (sealed with another one), so
    /// no later run could send it either. Said once, in that run's summary, which exits 1. Found by a review: such
    /// an entry failed every run, for good.
    static let undecryptableDropped = "undecryptable, dropped from the queue"

    /// Makes the chore's call for `item` once: `grant_type=refresh_token` on `/auth/token` to validate, or
    /// `/auth/revoke` (Sign in with Apple REST API, "Generate and validate tokens", "Revoke tokens").
    /// - Returns: the outcome Apple's answer settles.
    /// - Throws: `AppleAuthError` when the call failed, transiently or not.
    func ask(_ item: ChoreItem) async throws -> ChoreOutcome {
        guard let token = try? sealer.open(item.encryptedToken, clientID: item.clientID) else {
            return .failed(reason: kind == .retryRevocations ? Self.undecryptableDropped : Self.undecryptable)
        }
        do {
            switch kind {
            case .validateTokens:
                _ = try await client.refresh(refreshToken: token, clientID: item.clientID)
                return .valid
            case .retryRevocations:
                try await client.revoke(token: token, clientID: item.clientID)
                return .revoked
            }
        } catch let error as AppleAuthError where error.kind == .apple("invalid_grant") {
            // A refresh token Apple no longer honours is revoked already: for a revocation, nothing is left to do.
            return .revoked
        }
    }

    /// Records `outcome` for `item`, ending its claim: a valid token is next due in a day (for the daily run after
    /// the one begun at `runStartedAt`), a revoked one is marked (its user's tokens and sessions end) or leaves the
    /// queue; anything else is due again for the next run.
    func record(_ outcome: ChoreOutcome, for item: ChoreItem, runStartedAt: Date) async throws {
        let now = clock()
        switch (kind, outcome) {
        case (.validateTokens, .valid):
            try await appleTokens.recordValid(id: item.id, at: now, runStartedAt: runStartedAt)
        case (.validateTokens, .revoked):
            guard let userID = item.userID else { return }
            try await appleTokens.recordRevokedByApple(id: item.id, userID: userID, at: now)
        case (.retryRevocations, .revoked), (.retryRevocations, .valid),
             (.retryRevocations, .failed(Self.undecryptableDropped)):
            try await pending.delete(id: item.id)
        case (.retryRevocations, .failed(let reason)):
            try await pending.recordFailure(id: item.id, error: reason, dueAt: now)
        case (_, .failed), (_, .interrupted):
            try await queue.release(id: item.id, dueAt: now)
        }
    }
}
