import AppleID
import Foundation
import Storage

extension AppleNotificationRepository {
    /// What applying a notification did.
    package enum Outcome: Sendable, Equatable {
        /// The effect was applied to the user.
        case applied
        /// Its `jti` was seen before: nothing done.
        case duplicate
        /// No user has that Apple identifier: recorded, nothing else to do.
        case unknownUser
        /// A type this server does not act on: recorded and ignored.
        case ignored
    }

    /// Records the notification's `jti` and applies its effect in the same write (one transaction, one round trip),
    /// so each notification takes effect exactly once and a replay changes nothing:
    /// - `email-disabled` / `email-enabled`: the user's email forwarding state (and the relay address when sent);
    /// - `consent-revoked`: ends every session, bearer token and Apple token of the user, keeps the account;
    /// - `account-delete`: deletes the user with their tokens, sessions and Apple tokens.
    ///
    /// A `jti` seen before fails the write's first statement on the table's primary key, which rolls the whole
    /// write back, on one instance or across several; the effects find the user by Apple's `sub` themselves.
    package func apply(_ notification: ServerNotification) async throws -> Outcome {
        let sub = notification.subject
        let receivedAt = now()
        let user = "SELECT id FROM users WHERE siwa_identifier = ?"
        var statements = [
            SQL("INSERT INTO apple_notifications (jti, received_at) VALUES (?, ?)", [notification.id, receivedAt]),
            SQL(user, [sub]),
        ]
        switch notification.type {
        case .emailDisabled, .emailEnabled:
            statements.append(SQL("UPDATE users SET email_forwarding_enabled = ?, updated_at = ? WHERE siwa_identifier = ?",
                                  [notification.type == .emailEnabled, receivedAt, sub]))
            if let email = notification.email, !email.isEmpty {
                statements.append(SQL("UPDATE users SET email = ?, is_private_email = ? WHERE siwa_identifier = ?",
                                      [email, notification.isPrivateEmail ?? true, sub]))
            }
        case .consentRevoked:
            for table in ["tokens", "sessions", "apple_tokens"] {
                statements.append(SQL("DELETE FROM \(table) WHERE user_id IN (\(user))", [sub]))
            }
        case .accountDelete:
            statements.append(SQL("DELETE FROM sessions WHERE user_id IN (\(user))", [sub]))
            statements.append(SQL("DELETE FROM users WHERE siwa_identifier = ?", [sub]))
        case .unknown:
            break
        }
        let results: [SQLResult]
        do {
            results = try await pool.write(statements)
        } catch let failure as any DatabaseFailure where failure.failureKind == .uniqueConstraint
            && failure.statementIndex == 0
        {
            return .duplicate
        }
        guard results[1].count == 1 else { return .unknownUser }
        if case .unknown = notification.type { return .ignored }
        return .applied
    }

    /// Whether Apple forwards email for the user (false after `email-disabled`).
    package func isEmailForwardingEnabled(userID: UUID) async throws -> Bool? {
        try await pool.readOne(SQL("SELECT email_forwarding_enabled FROM users WHERE id = ?", [userID])) { row in
            try row[0] as Bool
        }
    }
}
