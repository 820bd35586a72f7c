/// The SQLite script of each migration, in the order `AppMigrations` registers them. Dates are INTEGER milliseconds
/// since 1970, UUIDs lowercase TEXT, hashes and encrypted tokens BLOBs (see `DatabaseValue`). What a released
/// version creates never changes (its text may be reformatted): a change to the schema is a new version.
enum SQLiteSchema {
    /// Version 1: users, and the bearer tokens that authenticate them (only the SHA-256 of a token is kept).
    static let usersAndTokens = """
        CREATE TABLE users (
            id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL, username TEXT NOT NULL, email TEXT NOT NULL,
            is_private_email INTEGER NOT NULL DEFAULT 0, siwa_identifier TEXT NOT NULL UNIQUE,
            created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
        CREATE TABLE tokens (
            id TEXT PRIMARY KEY NOT NULL, user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            value_hash BLOB NOT NULL UNIQUE, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL);
        CREATE INDEX tokens_user_id ON tokens (user_id);
        CREATE INDEX tokens_expires_at ON tokens (expires_at);
        """

    /// Version 2: browser sessions. `user_id` copies the user id kept in `data` so a user's sessions can be deleted
    /// with the user; it has no foreign key, so saving a session never fails because its user was just deleted.
    static let sessions = """
        CREATE TABLE sessions (id TEXT PRIMARY KEY NOT NULL, data TEXT NOT NULL, user_id TEXT, expires_at INTEGER NOT NULL);
        CREATE INDEX sessions_user_id ON sessions (user_id);
        CREATE INDEX sessions_expires_at ON sessions (expires_at);
        """

    /// Version 3: Apple refresh tokens (encrypted by the caller), kept to revoke them at account deletion.
    static let appleTokens = """
        CREATE TABLE apple_tokens (
            id TEXT PRIMARY KEY NOT NULL, user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            client_id TEXT NOT NULL, refresh_token BLOB NOT NULL, created_at INTEGER NOT NULL, revoked_at INTEGER);
        CREATE INDEX apple_tokens_user_id ON apple_tokens (user_id);
        """

    /// Version 4: single-use web-flow states, the last good Apple key set, Apple notification ids already applied,
    /// and Apple revocations to retry after their user is gone.
    static let signInSupport = """
        CREATE TABLE siwa_states (state_hash BLOB PRIMARY KEY NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL);
        CREATE INDEX siwa_states_expires_at ON siwa_states (expires_at);
        CREATE TABLE jwks_cache (id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1), body BLOB NOT NULL, fetched_at INTEGER NOT NULL);
        CREATE TABLE apple_notifications (jti TEXT PRIMARY KEY NOT NULL, received_at INTEGER NOT NULL);
        CREATE INDEX apple_notifications_received_at ON apple_notifications (received_at);
        CREATE TABLE pending_revocations (
            id TEXT PRIMARY KEY NOT NULL, client_id TEXT NOT NULL, refresh_token BLOB NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0, last_error TEXT, created_at INTEGER NOT NULL);
        """

    /// Version 5: whether Apple forwards email to the user's private relay address (`email-disabled` /
    /// `email-enabled` server notifications).
    static let emailForwarding = "ALTER TABLE users ADD COLUMN email_forwarding_enabled INTEGER NOT NULL DEFAULT 1;"

    /// Version 6: bearer tokens are found by the id their value carries (`BearerTokenValue`), so `value_hash` loses
    /// its unique index: with random hashes that index cost one random page per issued token, half of what a new
    /// user's sign-in wrote to the WAL.
    ///
    /// Tokens issued before have values without an id. The table is rebuilt (SQLite cannot drop a column's
    /// `UNIQUE`), their ids are marked as version 8 (RFC 9562 §5.8; new ids are version 7), and a partial index keeps
    /// finding exactly those by their hash until they expire.
    static let tokensByID = """
        CREATE TABLE tokens_by_id (
            id TEXT PRIMARY KEY NOT NULL, user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            value_hash BLOB NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL);
        INSERT INTO tokens_by_id (id, user_id, value_hash, created_at, expires_at)
            SELECT substr(id, 1, 14) || '8' || substr(id, 16), user_id, value_hash, created_at, expires_at
            FROM tokens;
        DROP TABLE tokens;
        ALTER TABLE tokens_by_id RENAME TO tokens;
        CREATE INDEX tokens_user_id ON tokens (user_id);
        CREATE INDEX tokens_expires_at ON tokens (expires_at);
        CREATE UNIQUE INDEX tokens_legacy_value_hash ON tokens (value_hash) WHERE \(isLegacyToken());
        """

    /// The condition that picks out the tokens issued before version 6, `idColumn` naming `tokens.id`: the id's
    /// version digit is 8. Queries repeat it so that SQLite uses `tokens_legacy_value_hash`.
    static func isLegacyToken(_ idColumn: String = "id") -> String { "substr(\(idColumn), 15, 1) = '8'" }

    /// Version 7: the web flow's `state` is checked against the `SIWA_STATE` cookie alone, as README "The web flow"
    /// says (constant-time compare); the single-use record of each issued state that version 4 added is dropped.
    static let dropWebFlowStates = "DROP TABLE siwa_states;"

    /// Version 8: the nonces of web sign-ins already made, so that each identity token bound to a browser signs in
    /// once, across restarts and on every instance sharing the database; rows go once the token has expired.
    static let usedNonces = """
        CREATE TABLE used_nonces (nonce TEXT PRIMARY KEY NOT NULL, used_at INTEGER NOT NULL, expires_at INTEGER NOT NULL);
        CREATE INDEX used_nonces_expires_at ON used_nonces (expires_at);
        """

    /// Version 9: Apple's chores (`siwa apple validate-tokens`, `retry-revocations`). `checked_at` is when Apple last
    /// honoured the token; `due_at` is when it may next be asked: a day after a check, a lease's end while a run holds
    /// it, and 0 (at once) for a token never checked. `chore_leases` holds the in-server schedule's lease.
    static let appleChores = """
        ALTER TABLE apple_tokens ADD COLUMN checked_at INTEGER;
        ALTER TABLE apple_tokens ADD COLUMN due_at INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX apple_tokens_due_at ON apple_tokens (due_at) WHERE revoked_at IS NULL;
        ALTER TABLE pending_revocations ADD COLUMN due_at INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX pending_revocations_due_at ON pending_revocations (due_at);
        CREATE TABLE chore_leases (
            name TEXT PRIMARY KEY NOT NULL, holder TEXT, expires_at INTEGER NOT NULL, next_run_at INTEGER NOT NULL);
        """

    /// Version 10: settings every instance of one database must share, stored once by the first instance and
    /// checked by every later one (`SharedSettings`): today the refresh-token key's fingerprint.
    static let sharedSettings = """
        CREATE TABLE shared_settings (name TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
        """

    /// Version 11: moving the app to another Apple team (TN3159; README "Moving the app to another team").
    /// `apple_client_id` is the client id (bundle id or Services ID) the user last signed in with, filled from the
    /// newest stored Apple token for the users before; `transfer_sub` is the transfer identifier Apple gave for
    /// `transfer_target` (a team id), `transferred_at` when the user's `sub` and e-mail were replaced by the receiving
    /// team's.
    static let appleTransfers = """
        ALTER TABLE users ADD COLUMN apple_client_id TEXT;
        ALTER TABLE users ADD COLUMN transfer_sub TEXT;
        ALTER TABLE users ADD COLUMN transfer_target TEXT;
        ALTER TABLE users ADD COLUMN transferred_at INTEGER;
        CREATE INDEX users_transfer_sub ON users (transfer_sub) WHERE transfer_sub IS NOT NULL;
        UPDATE users SET apple_client_id = (
            SELECT client_id FROM apple_tokens WHERE apple_tokens.user_id = users.id ORDER BY created_at DESC LIMIT 1);
        """

    /// Version 12: when the user's `transfer_sub` was stored, so that a user who moved here once can move again: a
    /// move (`transferred_at`) older than the latest export no longer counts as done.
    static let transferExports = """
        ALTER TABLE users ADD COLUMN transfer_exported_at INTEGER;
        """

    /// Version 13: which process claimed a chore's row (`ChoreClaimant`), so that a run on the same machine takes
    /// back at once what a killed run had claimed.
    static let choreClaimants = """
        ALTER TABLE apple_tokens ADD COLUMN claimed_by TEXT;
        ALTER TABLE pending_revocations ADD COLUMN claimed_by TEXT;
        """

    /// Version 14: one Apple token per user and client id, the newest: a sign-in with a code now replaces the token
    /// it supersedes, and the ones stored before are dropped here. No unique index: an instance of the previous
    /// build, still serving during a rolling upgrade, inserts a second token for a returning user, which a unique
    /// index would turn into a failed sign-in; the next sign-in with a code replaces both.
    static let oneAppleTokenPerClient = """
        DELETE FROM apple_tokens WHERE EXISTS (
            SELECT 1 FROM apple_tokens newer
            WHERE newer.user_id = apple_tokens.user_id AND newer.client_id = apple_tokens.client_id
                AND (newer.created_at > apple_tokens.created_at
                     OR (newer.created_at = apple_tokens.created_at AND newer.id > apple_tokens.id)));
        """

    /// Version 15: when each browser session began, and when Apple's last `email-enabled` / `email-disabled` event
    /// for the user happened, so that a notification delivered late applies to what it is about: a
    /// `consent-revoked` ends the grants, tokens and sessions from before its event, not a sign-in that came after
    /// it, and an email event older than the one applied changes nothing. Sessions stored before have no time and
    /// count as older than any event.
    static let notificationOrder = """
        ALTER TABLE sessions ADD COLUMN created_at INTEGER;
        ALTER TABLE users ADD COLUMN email_event_at INTEGER;
        """

    /// Version 16: when Apple last told that the user revoked their consent (`consent-revoked`), so that an identity
    /// token issued before it, which still verifies for the rest of its ten minutes, does not sign the user in again
    /// (found by a black-box review: a replayed token got a new 30-day bearer token after the revocation).
    static let consentRevocations = """
        ALTER TABLE users ADD COLUMN consent_revoked_at INTEGER;
        """

    /// Version 17: when Apple issued the identity token a bearer token was given for (its `iat`), so that a
    /// `consent-revoked` notification also ends a bearer token that a token from before the revocation got while the
    /// notification was on its way: created after the event, it came from an earlier grant (found by a black-box
    /// review). Tokens issued before have none.
    static let bearerGrants = """
        ALTER TABLE tokens ADD COLUMN identity_issued_at INTEGER;
        """

    /// Version 18: when Apple issued the identity token that last set a user's email (its `iat`), so that an email
    /// event from before it, delivered late, does not put back an older address; and when Apple issued the identity
    /// token a browser session began with, so that a late `consent-revoked` also ends a session begun after its event
    /// with a token from before it (both found by a black-box review). Rows from before have none.
    static let grantTimes = """
        ALTER TABLE users ADD COLUMN email_set_at INTEGER;
        ALTER TABLE sessions ADD COLUMN identity_issued_at INTEGER;
        """

    /// Version 19: Apple's `account-delete` and `consent-revoked` for a `sub` no user holds yet (after an app
    /// transfer, until the import gives it to a user), kept to be applied then (`AppleNotificationRepository+Held`).
    static let heldNotifications = """
        CREATE TABLE held_apple_notifications (
            jti TEXT PRIMARY KEY NOT NULL, sub TEXT NOT NULL, type TEXT NOT NULL, event_at INTEGER NOT NULL,
            received_at INTEGER NOT NULL);
        CREATE INDEX held_apple_notifications_sub ON held_apple_notifications (sub);
        CREATE INDEX held_apple_notifications_received_at ON held_apple_notifications (received_at);
        """
}
