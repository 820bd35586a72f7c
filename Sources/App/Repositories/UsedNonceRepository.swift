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

    let pool: any DatabaseClient
    let now: @Sendable () -> Date

    package init(pool: any DatabaseClient, now: @escaping @Sendable () -> Date = { Date() }) {
        self.pool = pool
        self.now = now
    }

    /// Whether `nonce` has signed in already: a read, so a replay is refused before Apple's code is spent.
    package func isUsed(_ nonce: String) async throws -> Bool {
        try await pool.readOne(SQL("SELECT 1 FROM used_nonces WHERE nonce = ?", [nonce])) { _ in true } ?? false
    }

    /// Deletes the uses whose tokens have expired; returns how many.
    @discardableResult
    package func sweepExpired() async throws -> Int { try await pool.deleteRows(expiredAt: now(), from: "used_nonces", key: "nonce") }

    /// The statement that records `use` in the caller's write: a plain insert, so of two uses of one nonce the
    /// second fails on the primary key and its whole write rolls back (the caller reports `AlreadyUsed`).
    static func record(_ use: Use) -> SQL {
        SQL("INSERT INTO used_nonces (nonce, used_at, expires_at) VALUES (?, ?, ?)", [use.nonce, use.usedAt, use.expiresAt])
    }

    /// `record(_:)` for a sign-in's write: records the use only when the user with Apple's `sub` exists by then.
    static func record(_ use: Use, forUserWith sub: String) -> SQL {
        SQL("INSERT INTO used_nonces (nonce, used_at, expires_at) SELECT ?, ?, ? FROM users WHERE siwa_identifier = ?",
            [use.nonce, use.usedAt, use.expiresAt, sub])
    }
}
