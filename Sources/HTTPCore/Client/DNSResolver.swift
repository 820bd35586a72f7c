import IOCore
import Synchronization

/// Host names to addresses without blocking an event loop: `getaddrinfo(3)` runs on one worker thread for the
/// whole process, and its answers are cached for `cacheLifetime` (getaddrinfo gives no TTL). Lookups of the same
/// name at once share one call. IP literals are converted on the spot.
final class DNSResolver: Sendable {
    /// How long an answer is used before the name is looked up again.
    static let cacheLifetime: Duration = .seconds(60)

    /// The process's resolver.
    static let shared = DNSResolver()

    private struct Key: Hashable {
        var host: String
        var port: Int
    }

    private struct State {
        var cache: [Key: (addresses: [HTTPClientAddress], expires: UInt64)] = [:]
        var inFlight: [Key: [CheckedContinuation<[HTTPClientAddress], any Error>]] = [:]
        var lookups = 0
    }

    private let state = Mutex(State())
    private let worker = BlockingWorker()
    private let lifetime: UInt64

    init(cacheLifetime: Duration = DNSResolver.cacheLifetime) {
        lifetime = MonotonicClock.nanoseconds(cacheLifetime)
    }

    /// Calls made to `getaddrinfo` on the worker so far (cache misses).
    var lookups: Int { state.withLock { $0.lookups } }

    /// The addresses of `host` (a name or an IP literal) for `port`.
    /// - Throws: `HTTPClientError` `.dnsFailure`.
    func resolve(host: String, port: Int) async throws -> [HTTPClientAddress] {
        if HTTPClientURL.isIPv4Literal(host) || HTTPClientURL.isIPv6Literal(host) {
            return try HTTPClientAddress.resolve(host: host, port: port)  // AI_NUMERICHOST: no lookup, no wait
        }
        let key = Key(host: host, port: port)
        let now = MonotonicClock.now()
        enum Next { case cached([HTTPClientAddress]), join, lookUp }
        let next = state.withLock { state -> Next in
            if let entry = state.cache[key], entry.expires > now { return .cached(entry.addresses) }
            if state.inFlight[key] != nil { return .join }
            state.inFlight[key] = []
            state.lookups += 1
            return .lookUp
        }
        switch next {
        case .cached(let addresses):
            return addresses
        case .join:
            return try await withCheckedThrowingContinuation { continuation in
                let joined = state.withLock { state -> Bool in
                    guard state.inFlight[key] != nil else { return false }
                    state.inFlight[key]?.append(continuation)
                    return true
                }
                if !joined { continuation.resume(throwing: HTTPClientError(.dnsFailure, "lookup of \(host) ended")) }
            }
        case .lookUp:
            let result = await Result { try await worker.run { try HTTPClientAddress.resolve(host: host, port: port) } }
            let joined = state.withLock { state in
                if case .success(let addresses) = result {
                    state.cache[key] = (addresses, MonotonicClock.now() + lifetime)
                }
                return state.inFlight.removeValue(forKey: key) ?? []
            }
            for continuation in joined { continuation.resume(with: result) }
            return try result.get()
        }
    }
}

extension Result where Failure == any Error {
    /// The outcome of an async throwing call.
    init(_ body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
