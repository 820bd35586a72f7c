import CryptoCore
import Foundation
import HTTPCore
import Logging

/// Where the last good key set is kept between runs (SQLite in the app), so a restart during an outage still
/// verifies tokens.
public protocol JWKSPersistence: Sendable {
    /// The last good JWKS document, if any.
    func load() async -> [UInt8]?
    /// Called after each successful fetch whose body parsed.
    func save(_ document: [UInt8]) async
}

/// Apple's signing keys from `APPLE_BASE_URL/auth/keys`, cached and rotated (DESIGN.md "JWKS").
///
/// - Cached for `Cache-Control: max-age` clamped to [5 min, 24 h]; 1 h without caching headers; never a
///   fetch per request.
/// - An unknown `kid` triggers one refetch, shared by every concurrent caller (single-flight) and at most one
///   per ``minimumRefetchInterval``, so a flood of bogus `kid`s costs Apple one request.
/// - When a fetch fails, the keys already held go on working, even past their expiry; with no keys at all
///   the error is `keysUnavailable` (the API answers 503), otherwise an unknown `kid` is `unknownKeyID` (401).
///
/// Generic over the parsed key type so it knows nothing of JOSE: `parse` turns a document into keys by `kid`.
public actor JWKSCache<Key: Sendable> {
    /// Shortest cache lifetime honoured.
    public static var minimumLifetime: TimeInterval { 5 * 60 }
    /// Longest cache lifetime honoured.
    public static var maximumLifetime: TimeInterval { 24 * 60 * 60 }
    /// Lifetime when the response has no `Cache-Control: max-age`.
    public static var defaultLifetime: TimeInterval { 60 * 60 }
    /// At most one fetch per this interval, however many unknown `kid`s or failures arrive.
    public static var minimumRefetchInterval: TimeInterval { 10 }

    private let url: String
    private let client: HTTPClient
    private let parse: @Sendable ([UInt8]) throws -> [String: Key]
    private let persistence: (any JWKSPersistence)?
    private let clock: @Sendable () -> Date
    private let logger: Logger

    private var keys: [String: Key] = [:]
    private var expiresAt: Date?
    private var lastFetchAttempt: Date?
    private var seeded = false
    private var inFlight: Task<Void, Never>?

    /// - Parameters:
    ///   - url: the JWKS address, e.g. `https://appleid.apple.com/auth/keys`.
    ///   - client: the HTTPS client (certificate and host name verified).
    ///   - parse: turns a JWKS document into keys by `kid`; throws when the document is unusable.
    ///   - persistence: keeps the last good document across restarts.
    ///   - clock: the current time (tests move it).
    ///   - logger: where fetch failures are reported (never key material).
    public init(url: String, client: HTTPClient = HTTPClient(),
                parse: @escaping @Sendable ([UInt8]) throws -> [String: Key],
                persistence: (any JWKSPersistence)? = nil, clock: @escaping @Sendable () -> Date = Date.init,
                logger: Logger = Logger(label: "siwa.jwks")) {
        self.url = url
        self.client = client
        self.parse = parse
        self.persistence = persistence
        self.clock = clock
        self.logger = logger
    }

    /// The key named `kid`.
    /// - Throws: `AppleIDError.unknownKeyID` when no key has that `kid` (after the one allowed refetch), or
    ///   `AppleIDError.keysUnavailable` when there are no keys at all.
    public func key(for kid: String) async throws -> Key {
        await seedIfNeeded()
        let now = clock()
        let isFresh = expiresAt.map { now < $0 } ?? false
        if isFresh, let key = keys[kid] { return key }
        if mayFetch(now: now) { await refresh() }
        if let key = keys[kid] { return key }
        throw keys.isEmpty ? AppleIDError.keysUnavailable : AppleIDError.unknownKeyID
    }

    /// Fetches now unless a fetch happened within ``minimumRefetchInterval`` (e.g. at start-up to warm the cache).
    public func prefetch() async {
        await seedIfNeeded()
        if mayFetch(now: clock()) { await refresh() }
    }

    /// Number of keys held, for health reporting.
    public var keyCount: Int { keys.count }

    private func mayFetch(now: Date) -> Bool {
        guard let last = lastFetchAttempt else { return true }
        return now.timeIntervalSince(last) >= Self.minimumRefetchInterval || inFlight != nil
    }

    /// One fetch shared by every caller that arrives while it runs.
    private func refresh() async {
        if let inFlight { return await inFlight.value }
        lastFetchAttempt = clock()
        let task = Task { await self.fetch() }
        inFlight = task
        await task.value
        inFlight = nil
    }

    private func fetch() async {
        do {
            let response = try await client.send(HTTPClientRequest(method: .GET, url: url, headers: ["Accept": "application/json"]))
            guard response.status.code == 200 else {
                logger.warning("Apple JWKS fetch answered \(response.status.code); keeping \(keys.count) cached keys")
                return
            }
            let parsed = try parse(response.body)
            guard !parsed.isEmpty else {
                logger.warning("Apple JWKS had no usable keys; keeping \(keys.count) cached keys")
                return
            }
            keys = parsed
            expiresAt = clock().addingTimeInterval(Self.lifetime(cacheControl: response.headers["Cache-Control"]))
            await persistence?.save(response.body)
        } catch {
            logger.warning("Apple JWKS fetch failed (\(type(of: error))): \(error); keeping \(keys.count) cached keys")
        }
    }

    /// Keys from the last good document, before any fetch; they count as expired so the first use refetches.
    private func seedIfNeeded() async {
        guard !seeded else { return }
        seeded = true
        guard let document = await persistence?.load(), let parsed = try? parse(document), !parsed.isEmpty else { return }
        keys = parsed
        logger.info("loaded \(parsed.count) Apple keys kept from the last good fetch")
    }

    /// The cache lifetime a `Cache-Control` value asks for, clamped (RFC 9111 §5.2.2.1: `max-age`).
    static func lifetime(cacheControl: String?) -> TimeInterval {
        guard let cacheControl else { return defaultLifetime }
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.first?.lowercased() == "max-age", parts.count == 2 else { continue }
            guard let seconds = Int(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))), seconds >= 0
            else { return defaultLifetime }
            return min(max(TimeInterval(seconds), minimumLifetime), maximumLifetime)
        }
        let lowered = cacheControl.lowercased()
        if lowered.contains("no-cache") || lowered.contains("no-store") { return minimumLifetime }
        return defaultLifetime
    }
}

extension JWKSCache: SigningKeyProvider where Key == RSAPublicKey {
    public func rsaKey(for kid: String) async throws -> RSAPublicKey { try await key(for: kid) }
}
