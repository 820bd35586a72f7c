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
        /// No user has that Apple identifier: recorded; an `account-delete` or `consent-revoked` is kept for the user
        /// who gets it (`applyHeld`).
        case unknownUser
        /// A type this server does not act on: recorded and ignored.
        case ignored
        /// An email event older than the one applied to the user already (Apple's deliveries can arrive out of
        /// order): recorded, nothing changed.
        case outdated
    }

    /// Records the notification's `jti` and applies its effect (`effects(of:…)`) in the same write (one transaction,
    /// one round trip), so each notification takes effect exactly once and a replay changes nothing. A
    /// `consent-revoked` keeps the account: a sign-in after the revocation is a new grant, which a late delivery must
    /// not end (found by an audit: it ended the newer sign-in and dropped its refresh token unrevoked).
    ///
    /// An `account-delete` or `consent-revoked` for a `sub` no user holds is kept, in the same write, until a user
    /// gets that `sub` (an app transfer's import, or a sign-in matched by `transfer_sub`), and then applied to them
    /// (`applyHeld`). Found by a black-box review: an account Apple said was deleted came back whole with the import.
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
        var statements = [
            SQL("INSERT INTO apple_notifications (jti, received_at) VALUES (?, ?)", [notification.id, receivedAt]),
            SQL(Self.userWithSub, [sub]),
        ]
        statements += Self.effects(of: notification.type, sub: sub, eventTime: eventTime, receivedAt: receivedAt,
                                   email: notification.email, isPrivateEmail: notification.isPrivateEmail)
        if let held = HeldEvent(notification.type) {
            statements.append(Self.hold(held, jti: notification.id, sub: sub, eventTime: eventTime ?? receivedAt,
                                        receivedAt: receivedAt))
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

    /// The user a notification is about, by Apple's `sub`.
    static let userWithSub = "SELECT id FROM users WHERE siwa_identifier = ?"

    /// The statements that carry out an event of `type` for the user holding `sub` (none when no user does):
    /// - `email-disabled` / `email-enabled`: the user's email forwarding state (and the relay address when sent),
    ///   unless an email event with a later `event_time` was applied already; the address also unless a sign-in
    ///   with an identity token issued after the event set the stored one;
    /// - `consent-revoked`: ends the sessions, bearer tokens and Apple tokens of the user issued up to `eventTime`
    ///   (all of them without one), and the bearer tokens and sessions issued later for an identity token from an
    ///   earlier second, and remembers that time;
    /// - `account-delete`: deletes the user with their tokens, sessions and Apple tokens.
    static func effects(of type: ServerNotification.EventType, sub: String, eventTime: Date?, receivedAt: Date,
                        email: String?, isPrivateEmail: Bool?) -> [SQL] {
        var statements: [SQL] = []
        switch type {
        case .emailDisabled, .emailEnabled:
            // Without an event time (Apple always sends one) the event applies as it comes.
            let eventAt = eventTime ?? receivedAt
            let notNewer = "siwa_identifier = ? AND (email_event_at IS NULL OR email_event_at <= ?)"
            statements.append(SQL("""
                UPDATE users SET email_forwarding_enabled = ?, email_event_at = ?, updated_at = ? WHERE \(notNewer)
                """, [type == .emailEnabled, eventAt, receivedAt, sub, eventAt]))
            if let email, !email.isEmpty {
                // Nor over an email that a newer identity token set (`email_set_at`, its `iat`).
                statements.append(SQL("""
                    UPDATE users SET email = ?, is_private_email = ?
                    WHERE \(notNewer) AND (email_set_at IS NULL OR email_set_at <= ?)
                    """, [email, isPrivateEmail ?? true, sub, eventAt, eventAt]))
            }
        case .consentRevoked:
            // Remembered, so that an identity token issued before it does not sign in again (`UserRepository.signIn`).
            let revokedAt = eventTime ?? receivedAt
            statements.append(SQL("""
                UPDATE users SET consent_revoked_at = ?
                WHERE siwa_identifier = ? AND (consent_revoked_at IS NULL OR consent_revoked_at < ?)
                """, [revokedAt, sub, revokedAt]))
            for table in ["tokens", "sessions", "apple_tokens"] {
                var condition = "user_id IN (\(userWithSub))"
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
            statements.append(SQL("DELETE FROM sessions WHERE user_id IN (\(userWithSub))", [sub]))
            statements.append(SQL("DELETE FROM users WHERE siwa_identifier = ?", [sub]))
        case .unknown:
            break
        }
        return statements
    }

    /// Whether Apple forwards email for the user (false after `email-disabled`).
    package func isEmailForwardingEnabled(userID: UUID) async throws -> Bool? {
        try await pool.readOne(SQL("SELECT email_forwarding_enabled FROM users WHERE id = ?", [userID])) { row in
            try row[0] as Bool
        }
    }
}
