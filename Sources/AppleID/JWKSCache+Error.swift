import CryptoCore

/// Why `JWKSCache.key(for:)` found no key.
public struct JWKSCacheError: ReasonError {
    public enum Reason: Sendable, Equatable {
        /// No key set could be fetched or loaded: Apple is unreachable and nothing is cached (a 503).
        case keysUnavailable
        /// Keys are known, but none has this `kid`, even after a refetch (a 401).
        case unknownKeyID
    }

    public var reason: Reason

    public init(_ reason: Reason) { self.reason = reason }
}
