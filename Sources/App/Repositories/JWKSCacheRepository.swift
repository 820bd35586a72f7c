import Foundation
import Storage

/// The last good Apple key set: a single row, replaced on each save.
package struct JWKSCacheRepository: Sendable {
    let pool: any DatabaseClient

    package init(pool: any DatabaseClient) {
        self.pool = pool
    }

    /// The saved key set, if one was ever saved.
    package func load() async throws -> CachedJWKS? {
        try await pool.readOne(SQL("SELECT body, fetched_at FROM jwks_cache WHERE id = 1")) {
            CachedJWKS(body: try $0[0], fetchedAt: try $0[1])
        }
    }

    /// Replaces the saved key set.
    package func save(_ entry: CachedJWKS) async throws {
        try await pool.write(SQL("""
            INSERT INTO jwks_cache (id, body, fetched_at) VALUES (1, ?, ?)
            ON CONFLICT (id) DO UPDATE SET body = excluded.body, fetched_at = excluded.fetched_at
            """, [entry.body, entry.fetchedAt]))
    }
}
