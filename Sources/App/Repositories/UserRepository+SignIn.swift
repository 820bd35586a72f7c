import Foundation
import Storage
import Web

extension UserRepository {
    /// The result of `signIn(_:token:)`.
    package struct SignIn: Sendable, Equatable {
        /// The stored user: the existing one (with a newer email applied), or `candidate` when it was created.
        package var user: User
        /// The stored token, issued to `user`, when one was asked for.
        package var token: BearerToken?
        /// Whether `user` was created by this call.
        package var created: Bool
        /// Whether `user` was found by the token's `transfer_sub` and took its new `sub` in this call.
        package var transferred = false
    }

    /// Why a sign-in wrote nothing.
    package enum SignInError: Error, Equatable {
        /// A new user needs an email and the identity token had none.
        case missingEmail
        /// The identity token was issued before Apple told that the user revoked their consent.
        case issuedBeforeConsentRevoked
    }

    /// The sign-in hot path in one write: one transaction, and one round trip to PostgreSQL. Finds the user by
    /// `candidate.siwaIdentifier` (never by email), creating `candidate` when there is none, and stores `token` and
    /// `appleToken` for that user (their `userID` is replaced). For a returning user, a different non-empty email
    /// in `candidate` replaces the stored one, and a name fills a stored empty name (Apple sends the name only once).
    ///
    /// The statements need no answer half-way: an upsert that writes only what changed, a read of the user, and
    /// the token inserts, which find the user by the same `siwa_identifier`. So two first sign-ins of the same Apple
    /// account at once, on one instance or several, make one user: the unique `siwa_identifier` turns the second
    /// insert into the first one's update.
    ///
    /// `appleToken`, the refresh token of this sign-in's code, replaces the one stored for the same user and client
    /// id: it is the user's current grant, so the chores validate one token per user and client a day, as Apple asks
    /// ("Verifying a user": Apple may throttle more than one validation of a user's Apple ID a day), and an older,
    /// revoked grant cannot end the sessions of a newer one. Apple has just issued it, so it is first due a day
    /// later: a chores run under steady sign-ins does not take the tokens stored after it began, and a new token is
    /// not sent back to Apple within the hour.
    ///
    /// `nonce`, the use of a web sign-in's nonce, is recorded last in the same write, once the user is found or
    /// made (a sign-in refused for want of an email spends no nonce): a nonce used before fails that insert on the
    /// table's primary key and the whole write rolls back, on any instance. `session`, a web sign-in's new browser
    /// session, is stored in the same write too, replacing the one the browser's cookie named.
    ///
    /// `clientID`, the client id the token was issued to, is recorded on the user (a transfer to another team needs
    /// it). `transferSub`, the token's `transfer_sub` claim after the app moved to this team (Apple's "Bringing new
    /// apps and users into your team"), matches a user holding that transfer identifier when no user has the token's
    /// `sub` yet: that user takes the new `sub` first, in the same write, so the upsert finds them.
    /// `issuedAt`, the identity token's `iat`: a user whose consent Apple said was revoked after that second
    /// (`consent_revoked_at`) is not signed in by it, a token replayed from before the revocation. The upsert makes
    /// the check, and fails the write (a `NOT NULL` violation, on purpose): nothing of it stays, no read comes
    /// first, and no statement is added. `token` keeps it too (`identity_issued_at`), for a revocation that arrives
    /// after this sign-in.
    /// - Throws: `SignInError.missingEmail` (nothing written) for a new user without an email;
    ///   `SignInError.issuedBeforeConsentRevoked` (nothing written) for a token from before a revocation;
    ///   `UsedNonceRepository.AlreadyUsed` (nothing written) when `nonce` signed in before.
    package func signIn(_ candidate: User, token: BearerToken?, appleToken: AppleToken? = nil,
                        nonce: UsedNonceRepository.Use? = nil, session: BrowserLogin? = nil, clientID: String? = nil,
                        transferSub: String? = nil, issuedAt: Date? = nil) async throws -> SignIn {
        let sub = candidate.siwaIdentifier
        var statements: [SQL] = []
        if let transferSub { statements.append(Self.matchTransfer(transferSub, sub: sub, at: candidate.updatedAt)) }
        let consentCheck = statements.count
        // A token's `iat` is whole seconds: one from the second of the revocation or later is a new grant.
        statements.append(Self.upsert(candidate, clientID: clientID, issuedAt: issuedAt,
                                      tokenSuperseded: issuedAt.map { $0.addingTimeInterval(1) } ?? .distantFuture))
        if let clientID, candidate.email.isEmpty {  // with an email the upsert records it
            statements.append(SQL("""
                UPDATE users SET apple_client_id = ? WHERE siwa_identifier = ? AND COALESCE(apple_client_id, '') <> ?
                """, [clientID, sub, clientID]))
        }
        if appleToken != nil, pool.engine == .postgres {
            // Sign-ins of one user that store Apple's token wait for each other here, so each one's delete below sees
            // the token the one before it stored. The upsert locks the row only when it changes something: without
            // this, two returning sign-ins at once each deleted from their own snapshot, and both tokens stayed.
            // Taken before the inserts, whose foreign keys share-lock the row, so that two sign-ins never hold that
            // and wait for each other's. SQLite's single writer orders them already. Found by a review.
            statements.append(SQL("SELECT 1 FROM users WHERE siwa_identifier = ? FOR UPDATE", [sub]))
        }
        let selected = statements.count
        statements.append(SQL("SELECT \(Self.columns) FROM users WHERE siwa_identifier = ?", [sub]))
        if let token {
            statements.append(SQL("""
                INSERT INTO tokens (id, user_id, value_hash, created_at, expires_at, identity_issued_at)
                SELECT ?, id, ?, ?, ?, ? FROM users WHERE siwa_identifier = ?
                """, [token.id, token.valueHash, token.createdAt, token.expiresAt, issuedAt, sub]))
        }
        if let appleToken {
            // Deleted, not updated in place: a chore still checking the replaced token finds it gone, and changes
            // nothing. (Not an upsert on a unique index: see `SQLiteSchema.oneAppleTokenPerClient`.)
            statements.append(SQL("""
                DELETE FROM apple_tokens WHERE user_id = (SELECT id FROM users WHERE siwa_identifier = ?) AND client_id = ?
                """, [sub, appleToken.clientID]))
            statements.append(SQL("""
                INSERT INTO apple_tokens (id, user_id, client_id, refresh_token, created_at, revoked_at, due_at)
                SELECT ?, id, ?, ?, ?, NULL, ? FROM users WHERE siwa_identifier = ?
                """, [appleToken.id, appleToken.clientID, appleToken.encryptedRefreshToken, appleToken.createdAt,
                      appleToken.createdAt.addingTimeInterval(AppleTokenRepository.checkInterval), sub]))
        }
        if let session {
            statements += DatabaseSessionStore.statements(storing: session, forUserWith: sub, at: candidate.updatedAt,
                                                          identityIssuedAt: issuedAt)
        }
        if let nonce { statements.append(UsedNonceRepository.record(nonce, forUserWith: sub)) }
        var results: [SQLResult] = []
        var attempts = 0
        while true {
            attempts += 1
            do {
                // After a round trip to Apple, a few milliseconds more are nothing, and the commit can be shared.
                results = try await pool.write(statements, urgency: appleToken == nil ? .prompt : .mayWait)
                break
            } catch let failure as any DatabaseFailure where nonce != nil
                && failure.statementIndex == statements.count - 1 && failure.failureKind == .uniqueConstraint
            {
                throw UsedNonceRepository.AlreadyUsed()
            } catch let failure as any DatabaseFailure where issuedAt != nil && failure.statementIndex == consentCheck
                && failure.failureKind == .other
            {
                throw SignInError.issuedBeforeConsentRevoked
            } catch let failure as any DatabaseFailure where failure.failureKind == .foreignKeyConstraint
                && attempts <= Self.deletedMeanwhileRetries
            {
                // PostgreSQL: the user was deleted (their account, a notification) after this write read them and
                // before its inserts named them, so the write rolled back whole. Written again, it finds no user: it
                // makes one, as a sign-in after the deletion would, or refuses one without an email. Found by an
                // audit: a 500. (SQLite runs one write at a time, so no deletion comes in between.)
                continue
            }
        }
        guard let user = try results[selected].first(User.init(row:)) else { throw SignInError.missingEmail }
        var stored = token
        stored?.userID = user.id
        return SignIn(user: user, token: stored, created: user.id == candidate.id,
                      transferred: transferSub != nil && results[0].changes == 1)
    }

    /// How many times a sign-in is written again when the user it found was deleted meanwhile.
    static let deletedMeanwhileRetries = 2

    /// Gives the user holding transfer identifier `transferSub` the `sub` of this team, in a write of its own, unless a
    /// user has that `sub` already or none holds the identifier; whether a user moved. What a sign-in matched by
    /// `transfer_sub` does first when Apple's notifications for that `sub` are kept, so that they apply to the user
    /// before the sign-in is judged (`SignInService.signIn`).
    package func moveByTransfer(_ transferSub: String, to sub: String, at date: Date) async throws -> Bool {
        try await pool.write(Self.matchTransfer(transferSub, sub: sub, at: date)).changes == 1
    }

    /// Gives the user holding transfer identifier `transferSub` the `sub` of this team, unless a user has that `sub`
    /// already (then the sign-in is theirs) or none holds the identifier (then it is a new user).
    private static func matchTransfer(_ transferSub: String, sub: String, at date: Date) -> SQL {
        SQL("""
            UPDATE users SET siwa_identifier = ?, transferred_at = ?, updated_at = ?
            WHERE id = (SELECT id FROM users WHERE transfer_sub = ? ORDER BY id LIMIT 1)
                AND NOT EXISTS (SELECT 1 FROM users WHERE siwa_identifier = ?)
            """, [sub, date, date, transferSub, sub])
    }

    /// Creates `candidate`, or updates the user with its `siwa_identifier` where the email, flag or client id differ
    /// or the stored name is empty; without an email it can only fill the name of an existing user.
    ///
    /// `tokenSuperseded` is the second after the identity token's `iat`: what Apple said from then on is newer than
    /// the token. An existing user whose consent was revoked then or later fails the statement: its
    /// `siwa_identifier` set to NULL, which the column refuses. An email event from then or later
    /// (`email_event_at`) keeps the stored email and flag (found by a black-box review: a stale token put back the
    /// address an `email-enabled` had replaced). Otherwise the token's email is stored with `issuedAt` as its time
    /// (`email_set_at`), when the row is written anyway (a new user, a changed email or flag, a name to fill, a
    /// row from before the column): an email event from before it, delivered late, then leaves it
    /// (`AppleNotificationRepository.apply`). A returning user's unchanged email keeps its older time, so that a
    /// sign-in writes nothing when nothing changed.
    private static func upsert(_ candidate: User, clientID: String?, issuedAt: Date?, tokenSuperseded: Date) -> SQL {
        let refused = "CASE WHEN users.consent_revoked_at >= ? THEN NULL ELSE users.siwa_identifier END"
        guard !candidate.email.isEmpty else {
            return SQL("""
                UPDATE users SET name = CASE WHEN name = '' AND ? <> '' THEN ? ELSE name END, updated_at = ?,
                    siwa_identifier = \(refused)
                WHERE siwa_identifier = ? AND ((name = '' AND ? <> '') OR consent_revoked_at >= ?)
                """, [candidate.name, candidate.name, candidate.updatedAt, tokenSuperseded, candidate.siwaIdentifier,
                      candidate.name, tokenSuperseded])
        }
        return SQL("""
            INSERT INTO users (\(columns), apple_client_id, email_set_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (siwa_identifier) DO UPDATE SET
                email = CASE WHEN users.email_event_at >= ? THEN users.email ELSE excluded.email END,
                is_private_email = CASE WHEN users.email_event_at >= ? THEN users.is_private_email
                    ELSE excluded.is_private_email END,
                email_set_at = CASE WHEN users.email_event_at >= ? THEN users.email_set_at
                    ELSE excluded.email_set_at END,
                name = CASE WHEN users.name = '' THEN excluded.name ELSE users.name END,
                updated_at = excluded.updated_at,
                apple_client_id = COALESCE(excluded.apple_client_id, users.apple_client_id),
                siwa_identifier = \(refused)
            WHERE users.email <> excluded.email OR users.is_private_email <> excluded.is_private_email
                OR (users.name = '' AND excluded.name <> '')
                OR (excluded.apple_client_id IS NOT NULL
                    AND users.apple_client_id IS DISTINCT FROM excluded.apple_client_id)
                OR users.consent_revoked_at >= ?
                OR (users.email_set_at IS NULL AND excluded.email_set_at IS NOT NULL)
            """, [
                candidate.id, candidate.name, candidate.username, candidate.email, candidate.isPrivateEmail,
                candidate.siwaIdentifier, candidate.createdAt, candidate.updatedAt, clientID, issuedAt,
                tokenSuperseded, tokenSuperseded, tokenSuperseded, tokenSuperseded, tokenSuperseded,
            ])
    }
}
