import Foundation
import Storage

/// Users in SQLite. Every method is one read or one write transaction on the pool.
package struct UserRepository: Sendable {
    static let columns = "id, name, username, email, is_private_email, siwa_identifier, created_at, updated_at"
    /// `columns` qualified with the table name, for joins.
    static let qualifiedColumns = """
        users.id, users.name, users.username, users.email, users.is_private_email, users.siwa_identifier, \
        users.created_at, users.updated_at
        """

    let pool: DatabasePool
    let now: @Sendable () -> Date

    /// - Parameters:
    ///   - pool: the migrated database.
    ///   - now: the clock, for `updated_at`.
    package init(pool: DatabasePool, now: @escaping @Sendable () -> Date = { Date() }) {
        self.pool = pool
        self.now = now
    }

    /// The user with `id`, if any.
    package func find(id: UUID) async throws -> User? {
        try await pool.read { db in
            try db.fetchOne(sql: "SELECT \(Self.columns) FROM users WHERE id = ?", arguments: [id], User.init(row:))
        }
    }

    /// The user whose Apple `sub` is `siwaIdentifier`, if any.
    package func find(siwaIdentifier: String) async throws -> User? {
        try await pool.read { db in
            try db.fetchOne(
                sql: "SELECT \(Self.columns) FROM users WHERE siwa_identifier = ?", arguments: [siwaIdentifier],
                User.init(row:))
        }
    }

    /// Inserts `user`.
    ///
    /// - Throws: `SQLiteError` with reason `.uniqueConstraint` when the id or `siwaIdentifier` is taken.
    package func create(_ user: User) async throws {
        try await pool.write { db in try Self.insert(user, into: db) }
    }

    /// Inserts `user` and `token` in one transaction: both or neither.
    package func createUserAndToken(_ user: User, token: BearerToken) async throws {
        try await pool.write { db in
            try Self.insert(user, into: db)
            try TokenRepository.insert(token, into: db)
        }
    }

    /// Sets the email and its private-relay flag; returns false when there is no such user.
    package func updateEmail(id: UUID, email: String, isPrivateEmail: Bool) async throws -> Bool {
        let updatedAt = now()
        return try await pool.execute(
            sql: "UPDATE users SET email = ?, is_private_email = ?, updated_at = ? WHERE id = ?",
            arguments: [email, isPrivateEmail, updatedAt, id]) == 1
    }

    /// Sets the display name; returns false when there is no such user.
    package func updateName(id: UUID, name: String) async throws -> Bool {
        let updatedAt = now()
        return try await pool.execute(
            sql: "UPDATE users SET name = ?, updated_at = ? WHERE id = ?", arguments: [name, updatedAt, id]) == 1
    }

    /// Sets only the private-relay flag (Apple's `email-disabled` / `email-enabled`); false when no such user.
    package func updatePrivateEmail(id: UUID, isPrivateEmail: Bool) async throws -> Bool {
        let updatedAt = now()
        return try await pool.execute(
            sql: "UPDATE users SET is_private_email = ?, updated_at = ? WHERE id = ?",
            arguments: [isPrivateEmail, updatedAt, id]) == 1
    }

    /// Deletes the user with their bearer tokens, sessions and Apple tokens, in one transaction, and queues
    /// `revocations` (Apple tokens whose revocation failed) in the same transaction.
    ///
    /// - Returns: false when there was no such user (the revocations are queued anyway).
    @discardableResult
    package func delete(id: UUID, queueing revocations: [PendingRevocation] = []) async throws -> Bool {
        try await pool.write { db in
            for revocation in revocations { try PendingRevocationRepository.insert(revocation, into: db) }
            try db.execute(sql: "DELETE FROM sessions WHERE user_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM users WHERE id = ?", arguments: [id])
            return db.changes == 1
        }
    }

    static func insert(_ user: User, into db: Database) throws {
        try db.execute(
            sql: "INSERT INTO users (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            arguments: [
                user.id, user.name, user.username, user.email, user.isPrivateEmail, user.siwaIdentifier,
                user.createdAt, user.updatedAt,
            ])
    }
}

extension User {
    /// Reads the columns of `UserRepository.columns`, in that order.
    init(row: Row) throws { try self.init(row: row, offset: 0) }

    /// Reads `UserRepository.columns` from `row`, starting at column `offset`.
    init(row: Row, offset: Int) throws {
        self.init(
            id: try row[offset], name: try row[offset + 1], username: try row[offset + 2], email: try row[offset + 3],
            isPrivateEmail: try row[offset + 4], siwaIdentifier: try row[offset + 5], createdAt: try row[offset + 6],
            updatedAt: try row[offset + 7])
    }
}
