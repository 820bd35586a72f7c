import AppleID
import CryptoCore
import Foundation
import HTTPCore
import JOSE
import Logging
import Storage

/// Apple's RS256 signing keys as the app uses them: the JWKS cache over `APPLE_BASE_URL/auth/keys`.
typealias AppleKeySet = JWKSCache<RSAPublicKey>

extension JWKSCache where Key == RSAPublicKey {
    /// The cache for `configuration`, keeping the last good key set in `database`.
    static func apple(configuration: Configuration, database: DatabasePool, logger: Logger,
                      clock: @escaping @Sendable () -> Date) -> AppleKeySet {
        AppleKeySet(
            url: configuration.appleBaseURL + "/auth/keys",
            client: HTTPClientFactory.make(configuration: configuration),
            parse: { document in FixedSigningKeys(try JWKSet(json: document)).keys },
            persistence: SQLiteJWKSPersistence(repository: JWKSCacheRepository(pool: database), clock: clock,
                                               logger: logger),
            clock: clock, logger: logger
        )
    }
}

/// The last good JWKS in the `jwks_cache` table.
struct SQLiteJWKSPersistence: JWKSPersistence {
    let repository: JWKSCacheRepository
    let clock: @Sendable () -> Date
    let logger: Logger

    func load() async -> [UInt8]? {
        do {
            return try await repository.load()?.body
        } catch {
            logger.warning("cannot read the kept Apple key set: \(error)")
            return nil
        }
    }

    func save(_ document: [UInt8]) async {
        do {
            try await repository.save(CachedJWKS(body: document, fetchedAt: clock()))
        } catch {
            logger.warning("cannot keep the Apple key set: \(error)")
        }
    }
}
