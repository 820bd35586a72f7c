import CryptoCore
import Foundation
import HTTPCore
import IOCore
import Logging

/// Apple's signing keys (a JWKS), fetched over HTTPS and cached; generic over the parsed key type.
///
/// Rules (README, "The iOS flow"; Apple, "Fetch Apple's public key for verifying token signature"):
/// - The set is kept for Cache-Control's `max-age` clamped to `policy` (RFC 9111 §5.2.2.1), 1 h by default.
/// - A known `kid` never waits for the network: an expired set is still served while one refetch runs.
/// - An unknown `kid` waits for one refetch shared by every concurrent caller (single-flight). Such refetches are
///   at least `policy.minimumRefetchInterval` apart, so a flood of bogus kids costs at most one fetch per
///   interval; they are counted apart from the first fetch and from refreshes of an expired set, so a key
///   rotated in just after one of those is fetched at once.
/// - A failed fetch keeps the current keys, and the lookups that waited for it do not start another. An unknown
///   `kid` is `unknownKeyID` (a 401) only when the last fetch
///   got Apple's set: with no keys at all, or when Apple could not be asked (the key may be a rotation Apple's set
///   would have), it is `keysUnavailable` (a 503, which the client retries).
/// - `store` seeds the cache before the first fetch and saves every body that parsed, so the last good set
///   survives a restart during an outage.
///
/// Key material and response bodies are never logged.
package actor JWKSCache<Key: Sendable> {
    /// Turns a JWKS body into keys by `kid`; throws when the body is not a usable key set.
    package typealias Parse = @Sendable ([UInt8]) throws -> [String: Key]

    let url: String
    let client: HTTPClient
    let parse: Parse
    let clock: @Sendable () -> Date
    let store: JWKSCacheStore?
    let policy: JWKSCachePolicy
    let logger: Logger
    /// Fetches so far, by outcome.
    package nonisolated let fetches = JWKSFetchCounters()

    var keys: [String: Key] = [:]
    var expiresAt = Date.distantPast
    /// When the last fetch other than one for an unknown `kid` started.
    var lastFetchAttempt: Date?
    /// When the last refetch for an unknown `kid` started.
    var lastUnknownKeyRefetch: Date?
    /// Whether the last fetch failed: then a `kid` the cached set lacks may be one Apple has rotated in.
    var lastFetchFailed = false
    var inFlight: Task<Void, Never>?
    var seeding: Task<Void, Never>?
    var isSeeded = false

    /// - Parameters:
    ///   - url: the JWKS endpoint, e.g. `https://appleid.apple.com/auth/keys`.
    ///   - client: the HTTP client used for fetches.
    ///   - parse: turns a response body into keys by `kid`.
    ///   - clock: the current time; injected so tests control expiry and rate limits.
    ///   - store: optional persistence of the last good body.
    ///   - policy: lifetimes and the refetch interval.
    ///   - logger: receives one line per fetch (kids and counts, never keys or bodies).
    package init(url: String, client: HTTPClient, parse: @escaping Parse,
                clock: @escaping @Sendable () -> Date = Date.init, store: JWKSCacheStore? = nil,
                policy: JWKSCachePolicy = JWKSCachePolicy(), logger: Logger) {
        self.url = url
        self.client = client
        self.parse = parse
        self.clock = clock
        self.store = store
        self.policy = policy
        self.logger = logger
    }

    /// The key named `kid`.
    /// - Throws: `JWKSCacheError` with reason `unknownKeyID`, or `keysUnavailable` when no key set is known or the
    ///   last fetch failed.
    package func key(for kid: String) async throws -> Key {
        await seedIfNeeded()
        if let key = keys[kid] {
            if isStale(now: clock()) { startFetchIfAllowed(after: &lastFetchAttempt) }
            return key
        }
        let joined = inFlight
        await joined?.value
        if keys[kid] == nil {
            // The fetch this lookup waited for just failed: Apple is not asked again at once, which would make this
            // lookup wait for a second `APPLE_TIMEOUT` (found by a black-box review: 2 x the timeout, with Apple
            // hanging, and two fetches 3 s apart).
            if joined != nil, lastFetchFailed { throw JWKSCacheError(.keysUnavailable) }
            // Before any key set is known this is the first fetch (or a retry of it), not a refetch.
            if keys.isEmpty {
                startFetchIfAllowed(after: &lastFetchAttempt)
            } else {
                startFetchIfAllowed(after: &lastUnknownKeyRefetch)
            }
            await inFlight?.value
        }
        if let key = keys[kid] { return key }
        throw JWKSCacheError(keys.isEmpty || lastFetchFailed ? .keysUnavailable : .unknownKeyID)
    }

    /// Fetches now unless a fetch is running or ran within the refetch interval; e.g. to warm up at start.
    package func refresh() async {
        await seedIfNeeded()
        startFetchIfAllowed(after: &lastFetchAttempt)
        await inFlight?.value
    }

    /// Waits for a running fetch, if any.
    func settled() async {
        await inFlight?.value
    }

    /// Whether the set is past its lifetime, or the clock is now before the set could have been fetched (it was
    /// set back by more than the longest lifetime).
    private func isStale(now: Date) -> Bool {
        now >= expiresAt || now < expiresAt.addingTimeInterval(-policy.maximumLifetime)
    }

    /// Starts a fetch unless one is running or `last` (the previous fetch of the same kind) is within the
    /// refetch interval. A `last` after now means the clock was set back: that does not hold fetches back. Found
    /// by a review: a step back of an hour held off every refetch, a rotated-in key's too, for the hour.
    private func startFetchIfAllowed(after last: inout Date?) {
        guard inFlight == nil else { return }
        let now = clock()
        if let last, last <= now, now < last.addingTimeInterval(policy.minimumRefetchInterval) { return }
        last = now
        inFlight = Task { await self.fetch() }
    }

    /// How long the first lookup waits for the kept set before it goes on to ask Apple: the store is the database,
    /// which may not answer (a frozen PostgreSQL held every sign-in for its statement timeout, found by a black-box
    /// review). Later lookups do not wait for it; a set loaded later still fills an empty cache.
    static var seedWait: Duration { .seconds(1) }

    private func seedIfNeeded() async {
        if isSeeded { return }
        if seeding == nil { seeding = Task { await self.seed() } }
        guard let seeding else { return }
        _ = await EventLoop.answer(within: Self.seedWait) { await seeding.value }
        isSeeded = true
    }
}

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

/// Persistence of the last good JWKS body, so the key set survives a restart while Apple is unreachable.
///
/// `load` is called once, before the first fetch; `save` after each fetch whose body parsed.
package struct JWKSCacheStore: Sendable {
    package var load: @Sendable () async -> [UInt8]?
    package var save: @Sendable ([UInt8]) async -> Void

    package init(load: @escaping @Sendable () async -> [UInt8]?, save: @escaping @Sendable ([UInt8]) async -> Void) {
        self.load = load
        self.save = save
    }
}

/// Apple's RSA keys from the JWKS cache verify identity tokens: an unknown `kid` is 401, no keys at all 503.
extension JWKSCache: SigningKeyProvider where Key == RSAPublicKey {
    package func rsaKey(for kid: String) async throws -> RSAPublicKey {
        do {
            return try await key(for: kid)
        } catch let error as JWKSCacheError {
            throw error.reason == .keysUnavailable ? AppleIDError.keysUnavailable : AppleIDError.unknownKeyID
        }
    }
}
