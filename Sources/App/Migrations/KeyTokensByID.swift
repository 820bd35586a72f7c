import Storage

/// Version 6: bearer tokens are found by the id their value carries (`BearerTokenValue`), so `value_hash` loses
/// its unique index: with random hashes that index cost one random page per issued token, half of what a new
/// user's sign-in wrote to the WAL.
///
/// Tokens issued before have values without an id. The table is rebuilt (SQLite cannot drop a column's
/// `UNIQUE`), their ids are marked as version 8 (RFC 9562 §5.8; new ids are version 7), and a partial index keeps
/// finding exactly those by their hash until they expire.
enum KeyTokensByID {
    /// The condition that picks out the tokens issued before this migration, `idColumn` naming `tokens.id`: the
    /// id's version digit is 8. Queries repeat it so that SQLite uses `tokens_legacy_value_hash`.
    static func isLegacy(_ idColumn: String = "id") -> String { "substr(\(idColumn), 15, 1) = '8'" }

    static func migrate(_ database: Database) throws {
        try database.executeScript("""
            CREATE TABLE tokens_by_id (
                id TEXT PRIMARY KEY NOT NULL,
                user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                value_hash BLOB NOT NULL,
                created_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL
            );
            INSERT INTO tokens_by_id (id, user_id, value_hash, created_at, expires_at)
                SELECT substr(id, 1, 14) || '8' || substr(id, 16), user_id, value_hash, created_at, expires_at
                FROM tokens;
            DROP TABLE tokens;
            ALTER TABLE tokens_by_id RENAME TO tokens;
            CREATE INDEX tokens_user_id ON tokens (user_id);
            CREATE INDEX tokens_expires_at ON tokens (expires_at);
            CREATE UNIQUE INDEX tokens_legacy_value_hash ON tokens (value_hash) WHERE \(isLegacy());
            """)
    }
}
