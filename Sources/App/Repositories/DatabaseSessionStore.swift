import CryptoCore
import Foundation
import Storage
import Web

/// `SessionStore` in the database (either engine): session data as a JSON object, expired sessions invisible and swept.
///
/// Sessions are stored under the SHA-256 of their id, so a copy of the database holds no usable session cookie.
///
/// The user id found under `userIDKey` in a session's data is copied to the `user_id` column, so deleting a user
/// deletes their sessions (`UserRepository.delete`, `deleteAll(userID:)`). The column is what `load` gives under
/// that key, in lower case as the API writes ids (RFC 9562 §4), so a sign-in's own write can store a session by
/// naming its user with a sub-select (`statements(storing:forUserWith:)`).
package struct DatabaseSessionStore: SessionStore {
    /// The data key the session middleware stores the signed-in user's id under.
    package static let defaultUserIDKey = "userID"

    let pool: any DatabaseClient
    let userIDKey: String
    let now: @Sendable () -> Date

    /// - Parameters:
    ///   - pool: the migrated database.
    ///   - userIDKey: the data key holding the user id (a UUID string).
    ///   - now: the clock that decides expiry.
    package init(
        pool: any DatabaseClient, userIDKey: String = defaultUserIDKey, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.pool = pool
        self.userIDKey = userIDKey
        self.now = now
    }

    /// The key a session id is stored under.
    static func storageKey(_ id: String) -> String { SHA256.hexHash(id) }

    package func load(id: String) async throws -> SessionRecord? {
        let now = now()
        let id = Self.storageKey(id)
        let stored = try await pool.readOne(SQL("""
            SELECT data, expires_at, user_id FROM sessions WHERE id = ? AND expires_at > ?
            """, [id, now])) { (try $0[0] as String, try $0[1] as Date, UUID.fromDatabaseValue(try $0.value(at: 2))) }
        guard let (json, expiresAt, userID) = stored,
              var data = try? JSONDecoder().decode([String: String].self, from: Data(json.utf8))
        else { return nil }
        if let userID { data[userIDKey] = userID.text(uppercase: false) }
        return SessionRecord(data: data, expiresAt: expiresAt)
    }

    /// The statements that store `login` inside a sign-in's write, for the user with Apple's `sub` as that write
    /// finds or makes it: the record the browser's cookie named is deleted, and the new one names the user in its
    /// `user_id` column (its data holds nothing else yet) and keeps `identityIssuedAt`, the `iat` of the identity
    /// token it began with, for a `consent-revoked` that arrives later.
    static func statements(storing login: BrowserLogin, forUserWith sub: String, at date: Date,
                           identityIssuedAt: Date?) -> [SQL] {
        var statements: [SQL] = []
        for replaced in login.replacedIDs {
            statements.append(SQL("DELETE FROM sessions WHERE id = ?", [storageKey(replaced)]))
        }
        statements.append(SQL("""
            INSERT INTO sessions (id, data, user_id, expires_at, created_at, identity_issued_at)
            SELECT ?, '{}', id, ?, ?, ? FROM users WHERE siwa_identifier = ?
            """, [storageKey(login.id), login.expiresAt, date, identityIssuedAt, sub]))
        return statements
    }

    /// The `data` and `user_id` columns of `record`.
    private func stored(_ record: SessionRecord) throws -> (json: String, userID: UUID?) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (String(decoding: try encoder.encode(record.data), as: UTF8.self),
                record.data[userIDKey].flatMap(UUID.init(uuidString:)))
    }

    package func save(id: String, record: SessionRecord) async throws {
        let (json, userID) = try stored(record)
        let id = Self.storageKey(id)
        try await pool.write(SQL("""
            INSERT INTO sessions (id, data, user_id, expires_at, created_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (id) DO UPDATE SET
                data = excluded.data, user_id = excluded.user_id, expires_at = excluded.expires_at
            """, [id, json, userID, record.expiresAt, now()]))
    }

    package func update(id: String, record: SessionRecord) async throws -> Bool {
        let (json, userID) = try stored(record)
        return try await pool.write([SQL("""
            UPDATE sessions SET data = ?, user_id = ?, expires_at = ? WHERE id = ? AND expires_at > ?
            """, [json, userID, record.expiresAt, Self.storageKey(id), now()])])[0].changes == 1
    }

    package func delete(id: String) async throws {
        let id = Self.storageKey(id)
        try await pool.write(SQL("DELETE FROM sessions WHERE id = ?", [id]))
    }

    /// Deletes every session of `userID`; returns how many.
    @discardableResult
    package func deleteAll(userID: UUID) async throws -> Int { try await pool.deleteRows(of: userID, from: "sessions") }

    /// Deletes expired sessions; returns how many.
    @discardableResult
    package func sweepExpired() async throws -> Int { try await pool.deleteRows(expiredAt: now(), from: "sessions") }
}
