import Foundation
import Storage

/// API bearer tokens, stored by the SHA-256 of their value (the caller hashes).
public struct TokenRepository: Sendable {
    let pool: DatabasePool
    let now: @Sendable () -> Date

    /// - Parameters:
    ///   - pool: the migrated database.
    ///   - now: the clock that decides expiry.
    public init(pool: DatabasePool, now: @escaping @Sendable () -> Date = { Date() }) {
        self.pool = pool
        self.now = now
    }

    /// Stores `token`.
    ///
    /// - Throws: `SQLiteError` `.foreignKeyConstraint` when its user does not exist,
    ///   `.uniqueConstraint` when the id or hash is taken.
    public func create(_ token: BearerToken) async throws {
        try await pool.write { db in try Self.insert(token, into: db) }
    }

    /// The user owning the token whose value hashes to `valueHash`, or nil when unknown or expired.
    /// One indexed lookup, run on the calling thread when a reader is idle (every bearer request makes it).
    public func findUser(valueHash: [UInt8]) async throws -> User? {
        let now = now()
        return try await pool.readInline { db in
            try db.fetchOne(
                sql: """
                    SELECT \(UserRepository.qualifiedColumns)
                    FROM tokens JOIN users ON users.id = tokens.user_id
                    WHERE tokens.value_hash = ? AND tokens.expires_at > ?
                    """,
                arguments: [valueHash, now], User.init(row:))
        }
    }

    /// Deletes the token whose value hashes to `valueHash` (logout); false when there was none.
    @discardableResult
    public func delete(valueHash: [UInt8]) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM tokens WHERE value_hash = ?", arguments: [valueHash])
            return db.changes == 1
        }
    }

    /// Deletes every token of `userID`; returns how many.
    @discardableResult
    public func deleteAll(userID: UUID) async throws -> Int {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM tokens WHERE user_id = ?", arguments: [userID])
            return db.changes
        }
    }

    /// Deletes expired tokens; returns how many.
    @discardableResult
    public func sweepExpired() async throws -> Int {
        let now = now()
        return try await pool.write { db in
            try db.execute(sql: "DELETE FROM tokens WHERE expires_at <= ?", arguments: [now])
            return db.changes
        }
    }

    static func insert(_ token: BearerToken, into db: Database) throws {
        try db.execute(
            sql: "INSERT INTO tokens (id, user_id, value_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
            arguments: [token.id, token.userID, token.valueHash, token.createdAt, token.expiresAt])
    }
}
