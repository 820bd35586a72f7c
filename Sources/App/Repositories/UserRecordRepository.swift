import Foundation
import Storage

/// Reads for the operators' user support (`siwa users show|export`), on either engine: finding a user by id, Apple
/// `sub` or email, and everything stored about them. Never selects a secret column.
struct UserRecordRepository {
    let database: any DatabaseClient

    /// The users `query` names: an id (a UUID), an email address (any letter case), or else an Apple `sub`.
    func users(matching query: String) async throws -> [User] {
        let columns = UserRepository.columns
        if let id = UUID(uuidString: query) {
            return try await database.read(SQL("SELECT \(columns) FROM users WHERE id = ?", [id]), User.init(row:))
        }
        if query.contains("@") {
            if query.utf8.allSatisfy({ $0 < 0x80 }) {
                return try await database.read(
                    SQL("SELECT \(columns) FROM users WHERE lower(email) = lower(?) ORDER BY created_at", [query]),
                    User.init(row:))
            }
            // SQLite's lower() folds ASCII only, and PostgreSQL's follows the database's locale: other letters are
            // compared here, as Swift folds them, on both engines alike. Found by a review: `Émile@…` was found as
            // `émile@…` on PostgreSQL only. The addresses of the same length in characters are the candidates.
            let folded = query.lowercased()
            return try await database.read(
                SQL("SELECT \(columns) FROM users WHERE length(email) = ? ORDER BY created_at", [query.unicodeScalars.count]),
                User.init(row:)
            ).filter { $0.email.lowercased() == folded }
        }
        return try await database.read(SQL("SELECT \(columns) FROM users WHERE siwa_identifier = ?", [query]),
                                       User.init(row:))
    }

    /// The columns of `users` beside `User`'s that the record shows.
    private struct Stored {
        var forwarding: Bool
        var clientID: String?
        var transfer: UserRecord.Transfer
        var emailEventAt: Date?
        var emailSetAt: Date?
        var consentRevokedAt: Date?
    }

    /// Everything stored about `user`, redacted (see `UserRecord`). Found by a review: the times of the sessions'
    /// issue, of Apple's last check of each refresh token, of the last email event and of the transfer's export
    /// were left out; and by another, the time of the user's consent revocation and the identity tokens' times.
    func record(of user: User) async throws -> UserRecord {
        let stored = try await database.readOne(SQL("""
            SELECT email_forwarding_enabled, apple_client_id, transfer_sub, transfer_target, transferred_at,
                transfer_exported_at, email_event_at, email_set_at, consent_revoked_at
            FROM users WHERE id = ?
            """, [user.id])
        ) { row in
            Stored(forwarding: try row[0], clientID: try row[1],
                   transfer: UserRecord.Transfer(transferSub: try row[2], targetTeam: try row[3],
                                                 transferredAt: try row[4], exportedAt: try row[5]),
                   emailEventAt: try row[6], emailSetAt: try row[7], consentRevokedAt: try row[8])
        }
        let tokens = try await database.read(SQL("""
            SELECT created_at, expires_at, identity_issued_at FROM tokens WHERE user_id = ? ORDER BY expires_at
            """, [user.id])
        ) { row -> (Date, Date, Date?) in (try row[0], try row[1], try row[2]) }
        let sessions = try await database.read(SQL("""
            SELECT expires_at, created_at, identity_issued_at FROM sessions WHERE user_id = ? ORDER BY expires_at
            """, [user.id])
        ) { row -> (Date, Date?, Date?) in (try row[0], try row[1], try row[2]) }
        let appleTokens = try await database.read(SQL("""
            SELECT client_id, created_at, checked_at, revoked_at FROM apple_tokens WHERE user_id = ? ORDER BY created_at
            """, [user.id])
        ) { row in
            UserRecord.AppleTokenEntry(clientID: try row[0], createdAt: try row[1], checkedAt: try row[2],
                                       revokedAt: try row[3])
        }
        var clientIDs: [String] = []
        for clientID in [stored?.clientID].compactMap({ $0 }) + appleTokens.map(\.clientID)
        where !clientIDs.contains(clientID) {
            clientIDs.append(clientID)
        }
        let transfer = stored?.transfer
        return UserRecord(
            id: user.id.uuidString.lowercased(), name: user.name, username: user.username, email: user.email,
            isPrivateEmail: user.isPrivateEmail, emailForwardingEnabled: stored?.forwarding ?? true,
            emailEventAt: stored?.emailEventAt, emailSetAt: stored?.emailSetAt,
            consentRevokedAt: stored?.consentRevokedAt,
            sub: user.siwaIdentifier, createdAt: user.createdAt, updatedAt: user.updatedAt, appleClientIDs: clientIDs,
            transfer: transfer == UserRecord.Transfer() ? nil : transfer,
            bearerTokens: .init(count: tokens.count, expiresAt: tokens.map(\.1), createdAt: tokens.map(\.0),
                                identityIssuedAt: tokens.map(\.2)),
            sessions: .init(count: sessions.count, expiresAt: sessions.map(\.0), createdAt: sessions.map(\.1),
                            identityIssuedAt: sessions.map(\.2)),
            appleTokens: appleTokens
        )
    }
}
