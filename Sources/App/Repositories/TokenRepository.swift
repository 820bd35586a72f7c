import CryptoCore
import Foundation
import Storage

/// API bearer tokens, stored with the SHA-256 of their value and found by the id the value carries.
package struct TokenRepository: Sendable {
    let pool: any DatabaseClient
    let now: @Sendable () -> Date

    /// - Parameters:
    ///   - pool: the migrated database.
    ///   - now: the clock that decides expiry.
    package init(pool: any DatabaseClient, now: @escaping @Sendable () -> Date = { Date() }) {
        self.pool = pool
        self.now = now
    }

    /// Stores `token`.
    ///
    /// - Throws: a `DatabaseFailure` of kind `.foreignKeyConstraint` when its user does not exist,
    ///   `.uniqueConstraint` when the id is taken.
    package func create(_ token: BearerToken) async throws {
        try await pool.write(Self.insert(token))
    }

    /// The token `value` names and its user, or nil when unknown, expired or not matching its stored hash.
    /// One indexed lookup by the id the value carries, run on the calling thread when a SQLite reader is idle (every
    /// bearer request makes it); on SQLite, a value it does not find is then looked up among the legacy tokens by
    /// its hash (tokens issued before their values carried an id; PostgreSQL never held any).
    package func find(_ value: BearerTokenValue) async throws -> (tokenID: UUID, user: User)? {
        let now = now()
        if let id = value.id, let found = try await pool.readInline(SQL("""
            SELECT tokens.value_hash, \(UserRepository.qualifiedColumns)
            FROM tokens JOIN users ON users.id = tokens.user_id
            WHERE tokens.id = ? AND tokens.expires_at > ?
            """, [id, now]), { row in (try row[0] as [UInt8], try User(row: row, offset: 1)) }).first,
           constantTimeEquals(found.0, value.hash)
        {
            return (id, found.1)
        }
        guard pool.engine == .sqlite else { return nil }
        return try await pool.readInline(SQL("""
            SELECT tokens.id, \(UserRepository.qualifiedColumns)
            FROM tokens JOIN users ON users.id = tokens.user_id
            WHERE tokens.value_hash = ? AND \(SQLiteSchema.isLegacyToken("tokens.id")) AND tokens.expires_at > ?
            """, [value.hash, now])) { row in (try row[0] as UUID, try User(row: row, offset: 1)) }.first
    }

    /// The user owning the token `value` names, or nil (see `find`).
    package func findUser(_ value: BearerTokenValue) async throws -> User? {
        try await find(value)?.user
    }

    /// Deletes the token with `id` (logout); false when there was none.
    @discardableResult
    package func delete(id: UUID) async throws -> Bool {
        try await pool.write(SQL("DELETE FROM tokens WHERE id = ?", [id])).changes == 1
    }

    /// Deletes every token of `userID`; returns how many.
    @discardableResult
    package func deleteAll(userID: UUID) async throws -> Int { try await pool.deleteRows(of: userID, from: "tokens") }

    /// Deletes expired tokens; returns how many.
    @discardableResult
    package func sweepExpired() async throws -> Int { try await pool.deleteRows(expiredAt: now(), from: "tokens") }

    static func insert(_ token: BearerToken) -> SQL {
        SQL("INSERT INTO tokens (id, user_id, value_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
            [token.id, token.userID, token.valueHash, token.createdAt, token.expiresAt])
    }
}
