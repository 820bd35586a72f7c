import Foundation
import HTTPCore
import IOCore

extension JWKSCache {
    /// One fetch; on success replaces the key set and saves the body; on failure keeps what is cached.
    func fetch() async {
        defer { inFlight = nil }
        do {
            let request = HTTPClientRequest(method: .GET, url: url, headers: ["Accept": "application/json"])
            // The call to Apple's duration ends with its answer, before the set is parsed and saved: a slow database
            // is not a slow Apple (found by a review).
            let response: HTTPClientResponse
            do {
                let started = MonotonicClock.now()
                defer { fetches.durations.record(nanoseconds: Int(clamping: MonotonicClock.now() - started)) }
                response = try await client.send(request)
            }
            guard response.status == .ok else {
                throw JWKSFetchFailure("HTTP status \(response.status.code)", outcome: .httpError)
            }
            let parsed: [String: Key]
            do {
                parsed = try parse(response.body)
            } catch {
                throw JWKSFetchFailure("body is not a usable key set (\(type(of: error)))", outcome: .invalid)
            }
            guard !parsed.isEmpty else { throw JWKSFetchFailure("key set is empty", outcome: .invalid) }
            fetches.record(.ok)
            lastFetchFailed = false
            let lifetime = policy.lifetime(for: response.headers, now: clock())
            keys = parsed
            expiresAt = clock().addingTimeInterval(lifetime)
            logger.info("JWKS fetched", metadata: [
                "url": "\(url)", "kids": "\(parsed.keys.sorted().joined(separator: ","))",
                "lifetime_s": "\(Int(lifetime))",
            ])
            // Kept without the callers waiting: a database that does not answer cost every sign-in that waited
            // on this fetch up to its statement timeout (found by a black-box review, PostgreSQL frozen).
            if let store {
                let body = response.body
                Task { await store.save(body) }
            }
        } catch {
            fetches.record((error as? JWKSFetchFailure)?.outcome ?? JWKSFetchOutcome(error))
            lastFetchFailed = true
            let reason = (error as? HTTPClientError)?.description ?? (error as? JWKSFetchFailure)?.reason
                ?? "\(type(of: error))"
            let kept = keys.isEmpty ? "no keys cached"
                : "keeping \(keys.count) cached keys" + (clock() >= expiresAt ? ", expired" : "")
            logger.warning("JWKS fetch failed: \(reason); \(kept)", metadata: ["url": "\(url)"])
        }
    }

    /// Loads the stored body once, before any fetch; the seeded keys count as expired, so the first
    /// lookup of a known kid also starts a refetch.
    func seed() async {
        defer {
            isSeeded = true
            seeding = nil
        }
        guard let store, let body = await store.load() else { return }
        do {
            let parsed = try parse(body)
            guard keys.isEmpty, !parsed.isEmpty else { return }
            keys = parsed
            logger.info("JWKS seeded from store", metadata: ["kids": "\(parsed.keys.sorted().joined(separator: ","))"])
        } catch {
            logger.warning("stored JWKS is not a usable key set (\(type(of: error))); ignored")
        }
    }
}

/// Why a fetch was not used; only logged.
struct JWKSFetchFailure: Error {
    var reason: String
    var outcome: JWKSFetchOutcome
    init(_ reason: String, outcome: JWKSFetchOutcome) {
        self.reason = reason
        self.outcome = outcome
    }
}
