import CryptoCore

/// Why `JWKSCache.key(for:)` found no key.
package struct JWKSCacheError: ReasonError {
    package enum Reason: Sendable, Equatable {
        /// No key set could be fetched or loaded: Apple is unreachable and nothing is cached (a 503).
        case keysUnavailable
        /// Keys are known, but none has this `kid`, even after a refetch (a 401).
        case unknownKeyID
    }

    package var reason: Reason

    package init(_ reason: Reason) { self.reason = reason }
}
