import Foundation
import Storage

/// The nonces of web sign-ins already made. A web identity token carries the hex SHA-256 of its browser's
/// `SIWA_STATE` cookie as its `nonce`; recording that nonce in the sign-in's own write transaction makes each
/// such token sign in once, on any instance, even after a restart.
package struct UsedNonceRepository: Sendable {
    /// One use of a nonce: recorded until `expiresAt`, after which the token that carried it is refused anyway.
    package struct Use: Sendable, Equatable {
        package var nonce: String
        package var usedAt: Date
        package var expiresAt: Date

        package init(nonce: String, usedAt: Date, expiresAt: Date) {
            self.nonce = nonce
            self.usedAt = usedAt
            self.expiresAt = expiresAt
        }
    }

    /// Why a sign-in bound to a nonce wrote nothing.
    package struct AlreadyUsed: Error, Equatable {}

    let pool: DatabasePool
    let now: @Sendable () -> Date

    package init(pool: DatabasePool, now: @escaping @Sendable () -> Date = { Date() }) {
        self.pool = pool
        self.now = now
    }

    /// Whether `nonce` has signed in already: a read, so a replay is refused before Apple's code is spent.
    package func isUsed(_ nonce: String) async throws -> Bool {
        try await pool.read { db in
            try db.fetchOne(sql: "SELECT 1 FROM used_nonces WHERE nonce = ?", arguments: [nonce]) { _ in true } ?? false
        }
    }

    /// Deletes the uses whose tokens have expired; returns how many.
    @discardableResult
    package func sweepExpired() async throws -> Int {
        let now = now()
        return try await pool.write { db in
            try db.execute(sql: "DELETE FROM used_nonces WHERE expires_at <= ?", arguments: [now])
            return db.changes
        }
    }

    /// Records `use` inside the caller's transaction; insert-or-fail, so of two concurrent uses one wins.
    ///
    /// - Throws: `AlreadyUsed` when the nonce was recorded before (the caller's transaction then rolls back).
    static func record(_ use: Use, into db: Database) throws {
        try db.execute(
            sql: "INSERT INTO used_nonces (nonce, used_at, expires_at) VALUES (?, ?, ?) ON CONFLICT (nonce) DO NOTHING",
            arguments: [use.nonce, use.usedAt, use.expiresAt])
        guard db.changes == 1 else { throw AlreadyUsed() }
    }
}
