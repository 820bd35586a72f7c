import Foundation
import Storage

/// The last good Apple key set: a single row, replaced on each save.
package struct JWKSCacheRepository: Sendable {
    let pool: DatabasePool

    package init(pool: DatabasePool) {
        self.pool = pool
    }

    /// The saved key set, if one was ever saved.
    package func load() async throws -> CachedJWKS? {
        try await pool.read { db in
            try db.fetchOne(sql: "SELECT body, fetched_at FROM jwks_cache WHERE id = 1") {
                CachedJWKS(body: try $0[0], fetchedAt: try $0[1])
            }
        }
    }

    /// Replaces the saved key set.
    package func save(_ entry: CachedJWKS) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO jwks_cache (id, body, fetched_at) VALUES (1, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET body = excluded.body, fetched_at = excluded.fetched_at
                    """,
                arguments: [entry.body, entry.fetchedAt])
        }
    }
}
