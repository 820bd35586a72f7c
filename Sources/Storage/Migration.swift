import Foundation

/// One schema change, identified by an increasing version number and a name.
public struct Migration: Sendable {
    /// The position of this migration; versions strictly increase in registration order.
    public let version: Int
    /// A short description recorded in `schema_migrations`, e.g. "create users".
    public let name: String
    let body: @Sendable (Database) throws -> Void
    /// The same change for PostgreSQL, one statement each, in PostgreSQL's own types; nil when the migration was
    /// written for SQLite only (a migrator with one cannot migrate a PostgreSQL database).
    let postgres: [String]?
}

/// A migration recorded in a database's `schema_migrations` table.
public struct AppliedMigration: Sendable, Equatable {
    public var version: Int
    public var name: String
    public var appliedAt: Date
}
