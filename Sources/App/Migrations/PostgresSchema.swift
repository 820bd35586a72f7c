/// The PostgreSQL statements of each migration: the same tables and columns as the SQLite schema, in PostgreSQL's
/// own types (`uuid`, `timestamptz`, `boolean`, `bytea`, `bigint`). PostgreSQL starts from the schema as it is now,
/// so the versions that rebuilt or dropped SQLite tables (6, 7) have nothing to do there.
enum PostgresSchema {
    static let usersAndTokens = [
        """
        CREATE TABLE users (
            id uuid PRIMARY KEY, name text NOT NULL, username text NOT NULL, email text NOT NULL,
            is_private_email boolean NOT NULL DEFAULT false, siwa_identifier text NOT NULL UNIQUE,
            created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL)
        """,
        """
        CREATE TABLE tokens (
            id uuid PRIMARY KEY, user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            value_hash bytea NOT NULL, created_at timestamptz NOT NULL, expires_at timestamptz NOT NULL)
        """,
        "CREATE INDEX tokens_user_id ON tokens (user_id)",
        "CREATE INDEX tokens_expires_at ON tokens (expires_at)",
    ]

    static let sessions = [
        "CREATE TABLE sessions (id text PRIMARY KEY, data text NOT NULL, user_id uuid, expires_at timestamptz NOT NULL)",
        "CREATE INDEX sessions_user_id ON sessions (user_id)",
        "CREATE INDEX sessions_expires_at ON sessions (expires_at)",
    ]

    static let appleTokens = [
        """
        CREATE TABLE apple_tokens (
            id uuid PRIMARY KEY, user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            client_id text NOT NULL, refresh_token bytea NOT NULL, created_at timestamptz NOT NULL,
            revoked_at timestamptz)
        """,
        "CREATE INDEX apple_tokens_user_id ON apple_tokens (user_id)",
    ]

    static let signInSupport = [
        "CREATE TABLE jwks_cache (id bigint PRIMARY KEY CHECK (id = 1), body bytea NOT NULL, fetched_at timestamptz NOT NULL)",
        "CREATE TABLE apple_notifications (jti text PRIMARY KEY, received_at timestamptz NOT NULL)",
        "CREATE INDEX apple_notifications_received_at ON apple_notifications (received_at)",
        """
        CREATE TABLE pending_revocations (
            id uuid PRIMARY KEY, client_id text NOT NULL, refresh_token bytea NOT NULL,
            attempts bigint NOT NULL DEFAULT 0, last_error text, created_at timestamptz NOT NULL)
        """,
    ]

    static let emailForwarding = [
        "ALTER TABLE users ADD COLUMN email_forwarding_enabled boolean NOT NULL DEFAULT true",
    ]

    static let usedNonces = [
        "CREATE TABLE used_nonces (nonce text PRIMARY KEY, used_at timestamptz NOT NULL, expires_at timestamptz NOT NULL)",
        "CREATE INDEX used_nonces_expires_at ON used_nonces (expires_at)",
    ]

    static let appleChores = [
        "ALTER TABLE apple_tokens ADD COLUMN checked_at timestamptz",
        "ALTER TABLE apple_tokens ADD COLUMN due_at timestamptz NOT NULL DEFAULT 'epoch'",
        "CREATE INDEX apple_tokens_due_at ON apple_tokens (due_at) WHERE revoked_at IS NULL",
        "ALTER TABLE pending_revocations ADD COLUMN due_at timestamptz NOT NULL DEFAULT 'epoch'",
        "CREATE INDEX pending_revocations_due_at ON pending_revocations (due_at)",
        """
        CREATE TABLE chore_leases (
            name text PRIMARY KEY, holder text, expires_at timestamptz NOT NULL, next_run_at timestamptz NOT NULL)
        """,
    ]

    /// Version 10: see `SQLiteSchema.sharedSettings`.
    static let sharedSettings = ["CREATE TABLE shared_settings (name text PRIMARY KEY, value text NOT NULL)"]

    /// Version 11: see `SQLiteSchema.appleTransfers`.
    static let appleTransfers = [
        "ALTER TABLE users ADD COLUMN apple_client_id text",
        "ALTER TABLE users ADD COLUMN transfer_sub text",
        "ALTER TABLE users ADD COLUMN transfer_target text",
        "ALTER TABLE users ADD COLUMN transferred_at timestamptz",
        "CREATE INDEX users_transfer_sub ON users (transfer_sub) WHERE transfer_sub IS NOT NULL",
        """
        UPDATE users SET apple_client_id = (
            SELECT client_id FROM apple_tokens WHERE apple_tokens.user_id = users.id ORDER BY created_at DESC LIMIT 1)
        """,
    ]

    /// Version 12: see `SQLiteSchema.transferExports`.
    static let transferExports = ["ALTER TABLE users ADD COLUMN transfer_exported_at timestamptz"]

    /// Version 13: see `SQLiteSchema.choreClaimants`.
    static let choreClaimants = [
        "ALTER TABLE apple_tokens ADD COLUMN claimed_by text",
        "ALTER TABLE pending_revocations ADD COLUMN claimed_by text",
    ]

    /// Version 14: see `SQLiteSchema.oneAppleTokenPerClient`.
    static let oneAppleTokenPerClient = [
        """
        DELETE FROM apple_tokens WHERE EXISTS (
            SELECT 1 FROM apple_tokens newer
            WHERE newer.user_id = apple_tokens.user_id AND newer.client_id = apple_tokens.client_id
                AND (newer.created_at > apple_tokens.created_at
                     OR (newer.created_at = apple_tokens.created_at AND newer.id > apple_tokens.id)))
        """,
    ]

    /// Version 15: see `SQLiteSchema.notificationOrder`. The sessions stored before keep no time; the default, set
    /// once the column is there, stamps those that instances of the previous build store during a rolling upgrade
    /// (found by an audit: left without a time, a later `consent-revoked` of any date ended them). `users` is altered
    /// first, then `sessions`: the order in which the server's writes (an account's deletion, a sign-in) lock them.
    /// Altering `sessions` first deadlocked with a deletion on an instance of the previous build during a rolling
    /// upgrade (found by a review).
    static let notificationOrder = [
        "ALTER TABLE users ADD COLUMN email_event_at timestamptz",
        "ALTER TABLE sessions ADD COLUMN created_at timestamptz",
        "ALTER TABLE sessions ALTER COLUMN created_at SET DEFAULT now()",
    ]

    /// Version 16: see `SQLiteSchema.consentRevocations`.
    static let consentRevocations = ["ALTER TABLE users ADD COLUMN consent_revoked_at timestamptz"]

    /// Version 17: see `SQLiteSchema.bearerGrants`.
    static let bearerGrants = ["ALTER TABLE tokens ADD COLUMN identity_issued_at timestamptz"]

    /// Version 18: see `SQLiteSchema.grantTimes`. `users` first, then `sessions`, as in version 15: the order in
    /// which the server's writes lock them.
    static let grantTimes = [
        "ALTER TABLE users ADD COLUMN email_set_at timestamptz",
        "ALTER TABLE sessions ADD COLUMN identity_issued_at timestamptz",
    ]

    /// Version 19: see `SQLiteSchema.heldNotifications`.
    static let heldNotifications = [
        """
        CREATE TABLE held_apple_notifications (
            jti text PRIMARY KEY, sub text NOT NULL, type text NOT NULL, event_at timestamptz NOT NULL,
            received_at timestamptz NOT NULL)
        """,
        "CREATE INDEX held_apple_notifications_sub ON held_apple_notifications (sub)",
        "CREATE INDEX held_apple_notifications_received_at ON held_apple_notifications (received_at)",
    ]
}
