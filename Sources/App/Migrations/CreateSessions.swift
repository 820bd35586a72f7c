import Storage

/// Version 2: browser sessions. `user_id` copies the user id kept in `data` so a user's sessions can be deleted
/// with the user; it has no foreign key, so saving a session never fails because its user was just deleted.
enum CreateSessions {
    static func migrate(_ database: Database) throws {
        try database.executeScript("""
            CREATE TABLE sessions (
                id TEXT PRIMARY KEY NOT NULL,
                data TEXT NOT NULL,
                user_id TEXT,
                expires_at INTEGER NOT NULL
            );
            CREATE INDEX sessions_user_id ON sessions (user_id);
            CREATE INDEX sessions_expires_at ON sessions (expires_at);
            """)
    }
}
