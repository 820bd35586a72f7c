import Storage

/// Version 4: single-use web-flow states, the last good Apple key set, Apple notification ids already applied,
/// and Apple revocations to retry after their user is gone.
enum CreateSignInSupport {
    static func migrate(_ database: Database) throws {
        try database.executeScript("""
            CREATE TABLE siwa_states (
                state_hash BLOB PRIMARY KEY NOT NULL,
                created_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL
            );
            CREATE INDEX siwa_states_expires_at ON siwa_states (expires_at);
            CREATE TABLE jwks_cache (
                id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
                body BLOB NOT NULL,
                fetched_at INTEGER NOT NULL
            );
            CREATE TABLE apple_notifications (
                jti TEXT PRIMARY KEY NOT NULL,
                received_at INTEGER NOT NULL
            );
            CREATE INDEX apple_notifications_received_at ON apple_notifications (received_at);
            CREATE TABLE pending_revocations (
                id TEXT PRIMARY KEY NOT NULL,
                client_id TEXT NOT NULL,
                refresh_token BLOB NOT NULL,
                attempts INTEGER NOT NULL DEFAULT 0,
                last_error TEXT,
                created_at INTEGER NOT NULL
            );
            """)
    }
}
