import Foundation

/// One schema change, identified by an increasing version number and a name.
package struct Migration: Sendable {
    /// The position of this migration; versions strictly increase in registration order.
    package let version: Int
    /// A short description recorded in `schema_migrations`, e.g. "create users".
    package let name: String
    let body: @Sendable (Database) throws -> Void
    /// The same change for PostgreSQL, one statement each, in PostgreSQL's own types; nil when the migration was
    /// written for SQLite only (a migrator with one cannot migrate a PostgreSQL database).
    let postgres: [String]?
}

/// A migration recorded in a database's `schema_migrations` table.
package struct AppliedMigration: Sendable, Equatable {
    package var version: Int
    package var name: String
    package var appliedAt: Date
}
