import IOCore
import Synchronization

/// Host names to addresses without blocking an event loop: `getaddrinfo(3)` runs on one worker thread for the
/// whole process, and its answers are cached for `cacheLifetime` (getaddrinfo gives no TTL). Lookups of the same
/// name at once share one call, and each caller waits no longer than its own deadline (a lookup that outlives it
/// still fills the cache). IP literals are converted on the spot.
final class DNSResolver: Sendable {
    /// How long an answer is used before the name is looked up again.
    static let cacheLifetime: Duration = .seconds(60)

    /// The process's resolver.
    static let shared = DNSResolver()

    typealias Lookup = @Sendable (_ host: String, _ port: Int) throws -> [HTTPClientAddress]
    private typealias Waiter = (id: Int, continuation: CheckedContinuation<[HTTPClientAddress], any Error>)

    private struct Key: Hashable {
        var host: String
        var port: Int
    }

    private struct State {
        var cache: [Key: (addresses: [HTTPClientAddress], expires: UInt64)] = [:]
        var inFlight: [Key: [Waiter]] = [:]
        var nextID = 0
        var lookups = 0
    }

    private let state = Mutex(State())
    private let worker = BlockingWorker()
    private let lifetime: UInt64
    private let lookup: Lookup

    /// - Parameter lookup: the blocking call, run on the worker (tests give a slow one).
    init(cacheLifetime: Duration = DNSResolver.cacheLifetime,
         lookup: @escaping Lookup = { try HTTPClientAddress.resolve(host: $0, port: $1) }) {
        lifetime = MonotonicClock.nanoseconds(cacheLifetime)
        self.lookup = lookup
    }

    /// Calls made to the lookup on the worker so far (cache misses).
    var lookups: Int { state.withLock { $0.lookups } }

    /// The addresses of `host` (a name or an IP literal) for `port`, before `deadline` (monotonic ns) on `loop`.
    /// - Throws: `HTTPClientError` `.dnsFailure`, or `.connectTimeout` when the deadline passes first.
    func resolve(host: String, port: Int, deadline: UInt64, loop: EventLoop) async throws -> [HTTPClientAddress] {
        if IPLiteral.isIPv4(host) || IPLiteral.isIPv6(host) {
            return try HTTPClientAddress.resolve(host: host, port: port)  // AI_NUMERICHOST: no lookup, no wait
        }
        let key = Key(host: host, port: port)
        let now = MonotonicClock.now()
        if let cached = state.withLock({ $0.cache[key] }), cached.expires > now { return cached.addresses }
        return try await withCheckedThrowingContinuation { continuation in
            let (id, start, cached) = state.withLock { state -> (Int, Bool, [HTTPClientAddress]?) in
                if let entry = state.cache[key], entry.expires > MonotonicClock.now() { return (0, false, entry.addresses) }
                state.nextID += 1
                let start = state.inFlight[key] == nil
                state.inFlight[key, default: []].append((state.nextID, continuation))
                if start { state.lookups += 1 }
                return (state.nextID, start, nil)
            }
            if let cached { return continuation.resume(returning: cached) }
            loop.schedule(at: deadline) { [weak self] in self?.giveUp(key, id, host: host) }
            guard start else { return }
            let submitted = worker.submit { [self] in
                finish(key, with: Result { try lookup(host, port) })
            }
            if !submitted { finish(key, with: .failure(HTTPClientError(.dnsFailure, "the resolver has stopped"))) }
        }
    }

    /// The lookup for `key` ended: caches a success and answers everyone still waiting.
    private func finish(_ key: Key, with result: Result<[HTTPClientAddress], any Error>) {
        let waiting = state.withLock { state -> [Waiter] in
            if case .success(let addresses) = result {
                state.cache[key] = (addresses, MonotonicClock.now() + lifetime)
            }
            return state.inFlight.removeValue(forKey: key) ?? []
        }
        for waiter in waiting { waiter.continuation.resume(with: result) }
    }

    /// A caller's deadline passed before the lookup ended.
    private func giveUp(_ key: Key, _ id: Int, host: String) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.inFlight[key]?.firstIndex(where: { $0.id == id }) else { return nil }
            return state.inFlight[key]?.remove(at: index)
        }
        waiter?.continuation.resume(throwing: HTTPClientError(.connectTimeout, "no address for \(host) in time"))
    }
}
