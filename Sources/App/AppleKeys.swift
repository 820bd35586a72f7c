import AppleID
import CryptoCore
import Foundation
import HTTPCore
import JOSE
import JSON
import Logging
import Storage

/// Apple's RS256 signing keys as the app uses them: the JWKS cache over `APPLE_BASE_URL/auth/keys`.
typealias AppleKeySet = JWKSCache<RSAPublicKey>

extension JWKSCache where Key == RSAPublicKey {
    /// The cache for `configuration`, keeping the last good key set in `database` for a restart during an outage.
    static func apple(configuration: Configuration, database: any DatabaseClient, client: HTTPClient, logger: Logger,
                      clock: @escaping @Sendable () -> Date) -> AppleKeySet {
        let repository = JWKSCacheRepository(pool: database)
        let store = JWKSCacheStore(
            load: {
                do {
                    return try await repository.load()?.body
                } catch {
                    logger.warning("cannot read the kept Apple key set: \(error)")
                    return nil
                }
            },
            save: { document in
                do {
                    try await repository.save(CachedJWKS(body: document, fetchedAt: clock()))
                } catch {
                    logger.warning("cannot keep the Apple key set: \(error)")
                }
            }
        )
        return AppleKeySet(
            url: configuration.appleBaseURL + "/auth/keys", client: client,
            parse: { document in FixedSigningKeys(try JWKSet(json: document)).keys },
            clock: clock, store: store, logger: logger
        )
    }
}
