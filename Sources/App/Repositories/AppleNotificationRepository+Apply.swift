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

    /// Records the notification's `jti` and applies its effect in the same transaction, so each notification
    /// takes effect exactly once and a replay changes nothing:
    /// - `email-disabled` / `email-enabled`: the user's email forwarding state (and the relay address when sent);
    /// - `consent-revoked`: ends every session, bearer token and Apple token of the user, keeps the account;
    /// - `account-delete`: deletes the user with their tokens, sessions and Apple tokens.
    package func apply(_ notification: ServerNotification) async throws -> Outcome {
        let receivedAt = now()
        return try await pool.write { db in
            try db.execute(
                sql: "INSERT INTO apple_notifications (jti, received_at) VALUES (?, ?) ON CONFLICT (jti) DO NOTHING",
                arguments: [notification.id, receivedAt])
            guard db.changes == 1 else { return .duplicate }
            guard let userID = try db.fetchOne(
                sql: "SELECT id FROM users WHERE siwa_identifier = ?", arguments: [notification.subject],
                { row in try row[0] as UUID })
            else { return .unknownUser }
            switch notification.type {
            case .emailDisabled, .emailEnabled:
                let enabled = notification.type == .emailEnabled
                try db.execute(
                    sql: "UPDATE users SET email_forwarding_enabled = ?, updated_at = ? WHERE id = ?",
                    arguments: [enabled, receivedAt, userID])
                if let email = notification.email, !email.isEmpty {
                    try db.execute(
                        sql: "UPDATE users SET email = ?, is_private_email = ? WHERE id = ?",
                        arguments: [email, notification.isPrivateEmail ?? true, userID])
                }
            case .consentRevoked:
                for table in ["tokens", "sessions", "apple_tokens"] {
                    try db.execute(sql: "DELETE FROM \(table) WHERE user_id = ?", arguments: [userID])
                }
            case .accountDelete:
                try db.execute(sql: "DELETE FROM sessions WHERE user_id = ?", arguments: [userID])
                try db.execute(sql: "DELETE FROM users WHERE id = ?", arguments: [userID])
            case .unknown:
                return .ignored
            }
            return .applied
        }
    }

    /// Whether Apple forwards email for the user (false after `email-disabled`).
    package func isEmailForwardingEnabled(userID: UUID) async throws -> Bool? {
        try await pool.read { db in
            try db.fetchOne(sql: "SELECT email_forwarding_enabled FROM users WHERE id = ?", arguments: [userID]) { row in
                try row[0] as Bool
            }
        }
    }
}
