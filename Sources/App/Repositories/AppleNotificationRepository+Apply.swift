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
        /// An email event older than the one applied to the user already (Apple's deliveries can arrive out of
        /// order): recorded, nothing changed.
        case outdated
    }

    /// Records the notification's `jti` and applies its effect in the same write (one transaction, one round trip),
    /// so each notification takes effect exactly once and a replay changes nothing:
    /// - `email-disabled` / `email-enabled`: the user's email forwarding state (and the relay address when sent),
    ///   unless an email event with a later `event_time` was applied already; the address also unless a sign-in
    ///   with an identity token issued after the event set the stored one;
    /// - `consent-revoked`: ends the sessions, bearer tokens and Apple tokens of the user issued up to its
    ///   `event_time` (all of them without one), and the bearer tokens and sessions issued later for an identity
    ///   token from an earlier second (one replayed while the notification was on its way), and remembers that
    ///   time: an identity token issued before it no longer signs in. It keeps the account: a sign-in after the
    ///   revocation is a new grant, which a late delivery must not end (found by an audit: it ended the newer
    ///   sign-in and dropped its refresh token unrevoked);
    /// - `account-delete`: deletes the user with their tokens, sessions and Apple tokens.
    ///
    /// A `jti` seen before fails the write's first statement on the table's primary key, which rolls the whole
    /// write back, on one instance or across several; the effects find the user by Apple's `sub` themselves.
    package func apply(_ notification: ServerNotification) async throws -> Outcome {
        let sub = notification.subject
        let receivedAt = now()
        // An event cannot have happened after its delivery: one dated later (a clock off at Apple's or here) counts
        // as of now. Found by a black-box review: a `consent-revoked` dated 10 min ahead refused every fresh sign-in
        // until then, and one email event far ahead would have made every later one `outdated`.
        let eventTime = notification.eventTime.map { min($0, receivedAt) }
        let user = "SELECT id FROM users WHERE siwa_identifier = ?"
        var statements = [
            SQL("INSERT INTO apple_notifications (jti, received_at) VALUES (?, ?)", [notification.id, receivedAt]),
            SQL(user, [sub]),
        ]
        switch notification.type {
        case .emailDisabled, .emailEnabled:
            // Without an event time (Apple always sends one) the event applies as it comes.
            let eventAt = eventTime ?? receivedAt
            let notNewer = "siwa_identifier = ? AND (email_event_at IS NULL OR email_event_at <= ?)"
            statements.append(SQL("""
                UPDATE users SET email_forwarding_enabled = ?, email_event_at = ?, updated_at = ? WHERE \(notNewer)
                """, [notification.type == .emailEnabled, eventAt, receivedAt, sub, eventAt]))
            if let email = notification.email, !email.isEmpty {
                // Nor over an email that a newer identity token set (`email_set_at`, its `iat`).
                statements.append(SQL("""
                    UPDATE users SET email = ?, is_private_email = ?
                    WHERE \(notNewer) AND (email_set_at IS NULL OR email_set_at <= ?)
                    """, [email, notification.isPrivateEmail ?? true, sub, eventAt, eventAt]))
            }
        case .consentRevoked:
            // Remembered, so that an identity token issued before it does not sign in again (`UserRepository.signIn`).
            let revokedAt = eventTime ?? receivedAt
            statements.append(SQL("""
                UPDATE users SET consent_revoked_at = ?
                WHERE siwa_identifier = ? AND (consent_revoked_at IS NULL OR consent_revoked_at < ?)
                """, [revokedAt, sub, revokedAt]))
            for table in ["tokens", "sessions", "apple_tokens"] {
                var condition = "user_id IN (\(user))"
                var arguments: [any DatabaseValueConvertible] = [sub]
                if let eventTime {
                    switch table {
                    case "sessions":
                        // Sessions stored before their start was recorded have no time: older than the event. An
                        // `iat` is whole seconds: one from the event's second or later is a new grant, as at sign-in
                        // (`UserRepository.signIn`).
                        condition += " AND (created_at IS NULL OR created_at <= ? OR identity_issued_at <= ?)"
                        arguments.append(eventTime.addingTimeInterval(-1))
                    case "tokens":
                        condition += " AND (created_at <= ? OR identity_issued_at <= ?)"
                        arguments.append(eventTime.addingTimeInterval(-1))
                    default:
                        condition += " AND created_at <= ?"
                    }
                    arguments.insert(eventTime, at: 1)
                }
                statements.append(SQL("DELETE FROM \(table) WHERE \(condition)", arguments))
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
        switch notification.type {
        case .unknown: return .ignored
        case .emailDisabled, .emailEnabled: return results[2].changes == 1 ? .applied : .outdated
        case .consentRevoked, .accountDelete: return .applied
        }
    }

    /// Whether Apple forwards email for the user (false after `email-disabled`).
    package func isEmailForwardingEnabled(userID: UUID) async throws -> Bool? {
        try await pool.readOne(SQL("SELECT email_forwarding_enabled FROM users WHERE id = ?", [userID])) { row in
            try row[0] as Bool
        }
    }
}
