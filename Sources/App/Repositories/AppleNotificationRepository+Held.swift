import AppleID
import Foundation
import Storage

/// Apple's `account-delete` and `consent-revoked` for a `sub` no user holds yet, kept until one does.
///
/// After an app transfer (TN3159) Apple names users by the receiving team's `sub`, which a user holds only once the
/// import (`siwa apple transfer import`) or a sign-in matched by `transfer_sub` gives it to them. An event Apple sent
/// meanwhile is kept (`held_apple_notifications`), and applied to that user as it would have been on arrival, with
/// its own event and delivery times: by the import at its end, before a sign-in matched by `transfer_sub` is judged
/// (`SignInService`), and by every instance's housekeeping, which also finds those a stopped run left. Events no user
/// gets within the transfer window are dropped after it (`heldLifetime`).
extension AppleNotificationRepository {
    /// The kinds of event kept for a `sub` no user holds: those that end what the user has.
    enum HeldEvent: String {
        case accountDelete = "account-delete"
        case consentRevoked = "consent-revoked"

        init?(_ type: ServerNotification.EventType) {
            switch type {
            case .accountDelete: self = .accountDelete
            case .consentRevoked: self = .consentRevoked
            case .emailDisabled, .emailEnabled, .unknown: return nil
            }
        }

        var eventType: ServerNotification.EventType {
            switch self {
            case .accountDelete: .accountDelete
            case .consentRevoked: .consentRevoked
            }
        }
    }

    /// How long an event is kept for a `sub` no user holds: the transfer window (TN3159's 60 days), after which no
    /// import can give a user the receiving team's `sub`.
    package static var heldLifetime: TimeInterval { AppleTransfer.window }
    /// Events applied per read: a backlog goes in many short writes.
    static let heldBatch = 500

    /// The statement that keeps an event for `sub` when no user holds it, in the notification's own write.
    static func hold(_ event: HeldEvent, jti: String, sub: String, eventTime: Date, receivedAt: Date) -> SQL {
        SQL("""
            INSERT INTO held_apple_notifications (jti, sub, type, event_at, received_at)
            SELECT ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM users WHERE siwa_identifier = ?)
            """, [jti, sub, event.rawValue, eventTime, receivedAt, sub])
    }

    /// Whether an event is kept for `sub`.
    func holds(sub: String) async throws -> Bool {
        let found = try await pool.readInline(SQL("SELECT 1 FROM held_apple_notifications WHERE sub = ? LIMIT 1",
                                                  [sub])) { _ in true }
        return !found.isEmpty
    }

    /// The users a kept event applies to: those who got its `sub` by moving here (an import, a sign-in by
    /// `transfer_sub`), who held another `sub` when it came. A user who got the `sub` by signing up did not exist
    /// then: the event is not theirs. Found by a review: housekeeping deleted a user who signed up after a kept
    /// `account-delete`.
    static let movedHere = "users.siwa_identifier = held.sub AND users.transferred_at IS NOT NULL"

    /// Applies every kept event whose `sub` a user who moved here now holds, the oldest event first,
    /// each in one write with its removal; returns how many were applied. Applying one twice (two instances at once)
    /// changes nothing more.
    @discardableResult
    package func applyHeld() async throws -> Int {
        var applied = 0
        while true {
            let held = try await pool.read(SQL("""
                SELECT held.jti, held.sub, held.type, held.event_at, held.received_at
                FROM held_apple_notifications held JOIN users ON \(Self.movedHere)
                ORDER BY held.event_at, held.jti LIMIT ?
                """, [Self.heldBatch])) { row in
                (jti: try row[0] as String, sub: try row[1] as String, type: try row[2] as String,
                 eventAt: try row[3] as Date, receivedAt: try row[4] as Date)
            }
            for event in held {
                var statements = [SQL("DELETE FROM held_apple_notifications WHERE jti = ?", [event.jti])]
                if let type = HeldEvent(rawValue: event.type)?.eventType {
                    statements += Self.effects(of: type, sub: event.sub, eventTime: event.eventAt,
                                               receivedAt: event.receivedAt, email: nil, isPrivateEmail: nil)
                }
                if try await pool.write(statements)[0].changes == 1 { applied += 1 }
            }
            if held.count < Self.heldBatch { return applied }
        }
    }

    /// Forgets kept events received before `date`, and those whose `sub` a user got by signing up (`movedHere`),
    /// which can never apply; returns how many.
    @discardableResult
    package func sweepHeld(receivedBefore date: Date) async throws -> Int {
        try await pool.write([
            SQL("DELETE FROM held_apple_notifications WHERE received_at < ?", [date]),
            SQL("""
                DELETE FROM held_apple_notifications WHERE EXISTS (
                    SELECT 1 FROM users
                    WHERE users.siwa_identifier = held_apple_notifications.sub AND users.transferred_at IS NULL)
                """),
        ]).reduce(0) { $0 + $1.changes }
    }
}
