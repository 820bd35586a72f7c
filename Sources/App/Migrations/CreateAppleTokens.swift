import Storage

/// Version 3: Apple refresh tokens (encrypted by the caller), kept to revoke them at account deletion.
enum CreateAppleTokens {
    static func migrate(_ database: Database) throws {
        try database.executeScript("""
            CREATE TABLE apple_tokens (
                id TEXT PRIMARY KEY NOT NULL,
                user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                client_id TEXT NOT NULL,
                refresh_token BLOB NOT NULL,
                created_at INTEGER NOT NULL,
                revoked_at INTEGER
            );
            CREATE INDEX apple_tokens_user_id ON apple_tokens (user_id);
            """)
    }
}
