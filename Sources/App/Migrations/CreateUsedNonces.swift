import Storage

/// Version 8: the nonces of web sign-ins already made, so that each identity token bound to a browser signs in
/// once, across restarts and on every instance sharing the database; rows go once the token has expired.
enum CreateUsedNonces {
    static func migrate(_ database: Database) throws {
        try database.executeScript("""
            CREATE TABLE used_nonces (
                nonce TEXT PRIMARY KEY NOT NULL,
                used_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL
            );
            CREATE INDEX used_nonces_expires_at ON used_nonces (expires_at);
            """)
    }
}
