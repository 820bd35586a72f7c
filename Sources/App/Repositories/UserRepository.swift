import Foundation
import Storage

/// Users. Every method is one read or one write (one transaction, one round trip) on either engine.
package struct UserRepository: Sendable {
    static let columns = "id, name, username, email, is_private_email, siwa_identifier, created_at, updated_at"
    /// `columns` qualified with the table name, for joins.
    static let qualifiedColumns = """
        users.id, users.name, users.username, users.email, users.is_private_email, users.siwa_identifier, \
        users.created_at, users.updated_at
        """

    let pool: any DatabaseClient
    let now: @Sendable () -> Date

    /// - Parameters:
    ///   - pool: the migrated database.
    ///   - now: the clock, for `updated_at`.
    package init(pool: any DatabaseClient, now: @escaping @Sendable () -> Date = { Date() }) {
        self.pool = pool
        self.now = now
    }

    /// The user with `id`, if any.
    package func find(id: UUID) async throws -> User? {
        try await pool.readOne(SQL("SELECT \(Self.columns) FROM users WHERE id = ?", [id]), User.init(row:))
    }

    /// The user whose Apple `sub` is `siwaIdentifier`, if any.
    package func find(siwaIdentifier: String) async throws -> User? {
        try await pool.readOne(
            SQL("SELECT \(Self.columns) FROM users WHERE siwa_identifier = ?", [siwaIdentifier]), User.init(row:))
    }

    /// Inserts `user`.
    ///
    /// - Throws: a `DatabaseFailure` of kind `.uniqueConstraint` when the id or `siwaIdentifier` is taken.
    package func create(_ user: User) async throws {
        try await pool.write(Self.insert(user))
    }

    /// Inserts `user` and `token` in one transaction: both or neither.
    package func createUserAndToken(_ user: User, token: BearerToken) async throws {
        try await pool.write([Self.insert(user), TokenRepository.insert(token)])
    }

    /// Sets the email and its private-relay flag; returns false when there is no such user.
    package func updateEmail(id: UUID, email: String, isPrivateEmail: Bool) async throws -> Bool {
        let updatedAt = now()
        return try await pool.write(SQL("UPDATE users SET email = ?, is_private_email = ?, updated_at = ? WHERE id = ?",
                                        [email, isPrivateEmail, updatedAt, id])).changes == 1
    }

    /// Sets the display name; returns false when there is no such user.
    package func updateName(id: UUID, name: String) async throws -> Bool {
        let updatedAt = now()
        return try await pool.write(SQL("UPDATE users SET name = ?, updated_at = ? WHERE id = ?", [name, updatedAt, id]))
            .changes == 1
    }

    /// Sets only the private-relay flag (Apple's `email-disabled` / `email-enabled`); false when no such user.
    package func updatePrivateEmail(id: UUID, isPrivateEmail: Bool) async throws -> Bool {
        let updatedAt = now()
        return try await pool.write(SQL("UPDATE users SET is_private_email = ?, updated_at = ? WHERE id = ?",
                                        [isPrivateEmail, updatedAt, id])).changes == 1
    }

    /// What `delete(id:queueing:besides:)` removed and queued.
    package struct Deletion: Sendable, Equatable {
        /// Whether the user was there to delete (false: gone already, another deletion's).
        package var deleted: Bool
        /// The bearer tokens and browser sessions deleted with the user.
        package var bearerTokens: Int
        package var sessions: Int
        /// Apple tokens the transaction found that no one had sent to Apple (stored by a sign-in while the
        /// revocations ran), queued for `siwa apple retry-revocations`.
        package var queuedUnsent: Int
    }

    /// Why an Apple token stored while its user was being deleted is in the retry queue (no token material).
    static let storedDuringDeletion = "stored by a sign-in while the account was being deleted; not yet sent to Apple"

    /// Deletes the user with their bearer tokens, sessions and Apple tokens, in one transaction, and queues
    /// `revocations` (Apple tokens whose revocation failed) in the same transaction.
    ///
    /// Every Apple token the transaction deletes is revoked or queued: those not among `sent` (the ids of the
    /// tokens the caller sent to Apple, revoked or in `revocations`) and not refused by Apple already were stored
    /// after the caller listed them, by a sign-in with a code while the revocations ran, and are queued here
    /// (found by an audit: such a token was deleted and never revoked, and Apple kept the app listed under the
    /// user's Apple ID). `revocations` are queued only while the user is there: a deletion that came second queues
    /// nothing, the first having queued what it could not revoke.
    ///
    /// On PostgreSQL the transaction first locks the user's row: a sign-in that holds it (its upsert) commits before
    /// the queueing statement takes its snapshot, so that statement sees the token the sign-in stored. Without the
    /// lock it read the table before that commit, and the `DELETE FROM users` that then waited for the sign-in
    /// cascaded to the new token (found by an audit). SQLite runs one write at a time.
    @discardableResult
    package func delete(id: UUID, queueing revocations: [PendingRevocation] = [], besides sent: [UUID] = [])
        async throws -> Deletion
    {
        let placeholders = Array(repeating: "?", count: sent.count).joined(separator: ", ")
        let unsent = sent.isEmpty ? "" : " AND id NOT IN (\(placeholders))"
        let arguments: [any DatabaseValueConvertible] = [Self.storedDuringDeletion, now(), id] + sent
        let lock = pool.engine == .postgres ? [SQL("SELECT 1 FROM users WHERE id = ? FOR UPDATE", [id])] : []
        let statements = lock + revocations.map { PendingRevocationRepository.insert($0, whileUserExists: id) } + [
            SQL("""
                INSERT INTO pending_revocations (\(PendingRevocationRepository.columns))
                SELECT id, client_id, refresh_token, 0, ?, ? FROM apple_tokens
                WHERE user_id = ? AND revoked_at IS NULL\(unsent)
                """, arguments),
            SQL("DELETE FROM tokens WHERE user_id = ?", [id]),
            SQL("DELETE FROM sessions WHERE user_id = ?", [id]),
            SQL("DELETE FROM users WHERE id = ?", [id]),
        ]
        let results = try await pool.write(statements)
        let counts = results.suffix(4).map(\.changes)
        return Deletion(deleted: counts[3] == 1, bearerTokens: counts[1], sessions: counts[2], queuedUnsent: counts[0])
    }

    static func insert(_ user: User) -> SQL {
        SQL("INSERT INTO users (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [
            user.id, user.name, user.username, user.email, user.isPrivateEmail, user.siwaIdentifier, user.createdAt,
            user.updatedAt,
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
