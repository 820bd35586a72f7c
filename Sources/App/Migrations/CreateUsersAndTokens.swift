import Storage

/// Version 1: users, and the bearer tokens that authenticate them (only the SHA-256 of a token is kept).
enum CreateUsersAndTokens {
    static func migrate(_ database: Database) throws {
        try database.executeScript("""
            CREATE TABLE users (
                id TEXT PRIMARY KEY NOT NULL,
                name TEXT NOT NULL,
                username TEXT NOT NULL,
                email TEXT NOT NULL,
                is_private_email INTEGER NOT NULL DEFAULT 0,
                siwa_identifier TEXT NOT NULL UNIQUE,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL
            );
            CREATE TABLE tokens (
                id TEXT PRIMARY KEY NOT NULL,
                user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                value_hash BLOB NOT NULL UNIQUE,
                created_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL
            );
            CREATE INDEX tokens_user_id ON tokens (user_id);
            CREATE INDEX tokens_expires_at ON tokens (expires_at);
            """)
    }
}
