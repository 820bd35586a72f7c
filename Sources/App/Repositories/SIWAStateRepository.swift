import Foundation
import Storage

/// The `state` values of the web flow: each usable once, within `lifetime` of being issued.
///
/// States are stored by hash (the caller hashes, as for bearer tokens).
public struct SIWAStateRepository: Sendable {
    /// How long an issued state stays usable: 5 minutes, matching the `SIWA_STATE` cookie's `Max-Age=300`.
    public static let defaultLifetime: Duration = .seconds(300)

    let pool: DatabasePool
    let lifetime: Duration
    let now: @Sendable () -> Date

    /// - Parameters:
    ///   - pool: the migrated database.
    ///   - lifetime: how long a state stays usable.
    ///   - now: the clock.
    public init(
        pool: DatabasePool, lifetime: Duration = defaultLifetime, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.pool = pool
        self.lifetime = lifetime
        self.now = now
    }

    /// Records a newly issued state.
    public func insert(stateHash: [UInt8]) async throws {
        let createdAt = now()
        let expiresAt = createdAt.addingTimeInterval(Double(lifetime.components.seconds)
            + Double(lifetime.components.attoseconds) / 1e18)
        try await pool.write { db in
            try db.execute(
                sql: "INSERT INTO siwa_states (state_hash, created_at, expires_at) VALUES (?, ?, ?)",
                arguments: [stateHash, createdAt, expiresAt])
        }
    }

    /// Deletes the state and returns whether it was issued and still live: true at most once per state.
    public func consume(stateHash: [UInt8]) async throws -> Bool {
        let now = now()
        return try await pool.write { db in
            let expiresAt = try db.fetchOne(
                sql: "SELECT expires_at FROM siwa_states WHERE state_hash = ?", arguments: [stateHash]
            ) { try $0[0] as Date }
            guard let expiresAt else { return false }
            try db.execute(sql: "DELETE FROM siwa_states WHERE state_hash = ?", arguments: [stateHash])
            return expiresAt > now
        }
    }

    /// Deletes expired states; returns how many.
    @discardableResult
    public func sweepExpired() async throws -> Int {
        let now = now()
        return try await pool.write { db in
            try db.execute(sql: "DELETE FROM siwa_states WHERE expires_at <= ?", arguments: [now])
            return db.changes
        }
    }
}
