import Storage

/// Version 5: whether Apple forwards email to the user's private relay address (`email-disabled` /
/// `email-enabled` server notifications).
enum AddEmailForwarding {
    static func migrate(_ database: Database) throws {
        try database.executeScript("""
            ALTER TABLE users ADD COLUMN email_forwarding_enabled INTEGER NOT NULL DEFAULT 1;
            """)
    }
}
