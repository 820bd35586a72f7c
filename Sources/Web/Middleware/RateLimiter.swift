import IOCore
import HTTPCore
import Synchronization

/// A token bucket per client address: each holds up to `burst` tokens, refills at `perMinute / 60` tokens per
/// second, and every request takes one. An empty bucket refuses, with the whole seconds until a token is back.
///
/// Memory is bounded: at most `maxTrackedAddresses` buckets. When a new address finds the table full, buckets
/// that have refilled completely are dropped first (forgetting them changes nothing), then the least recently
/// used ones, until `evictionBatch` slots are free.
/// One lock around a dictionary: no task or actor hop on the hot path.
package final class RateLimiter: Sendable {
    /// Sustained requests per minute per address.
    package let perMinute: Int
    /// Requests an address may make at once after being quiet.
    package let burst: Int
    /// Most addresses tracked at once.
    package let maxTrackedAddresses: Int
    /// Nanoseconds to earn one token; a bucket's content is counted in these nanoseconds, so all is integer.
    private let nanosecondsPerToken: UInt64
    private let capacity: UInt64
    private let now: @Sendable () -> UInt64
    private let buckets: Mutex<[AddressPrefix: Bucket]>

    package static let defaultMaxTrackedAddresses = 100_000

    struct Bucket {
        /// Tokens times `nanosecondsPerToken`.
        var content: UInt64
        /// Monotonic nanoseconds of the last refill.
        var updated: UInt64
    }

    /// - Parameters:
    ///   - perMinute: Sustained requests per minute per address; at least 1.
    ///   - burst: The bucket's capacity; at least 1.
    ///   - maxTrackedAddresses: Most buckets kept; at least 1.
    ///   - now: Monotonic nanoseconds (tests inject a clock they move); `CLOCK_MONOTONIC` when nil.
    package init(perMinute: Int, burst: Int, maxTrackedAddresses: Int = defaultMaxTrackedAddresses,
                now: (@Sendable () -> UInt64)? = nil) {
        self.perMinute = max(1, perMinute)
        self.burst = max(1, burst)
        self.maxTrackedAddresses = max(1, maxTrackedAddresses)
        nanosecondsPerToken = max(1, 60_000_000_000 / UInt64(self.perMinute))
        capacity = UInt64(self.burst) * nanosecondsPerToken
        self.now = now ?? MonotonicClock.now
        buckets = Mutex([:])
    }

    /// Buckets dropped at once when the table is full and none has refilled: a sixteenth of the table.
    var evictionBatch: Int { max(1, maxTrackedAddresses / 16) }

    /// Takes a token for `address`. Returns nil when the request may go ahead, else the whole seconds
    /// (at least 1) until the bucket holds a token again, for `Retry-After` (RFC 9110 §10.2.3).
    package func acquire(_ address: AddressPrefix) -> Int? {
        let time = now()
        return buckets.withLock { buckets -> Int? in
            var bucket: Bucket
            if let existing = buckets[address] {
                bucket = refilled(existing, at: time)
            } else {
                if buckets.count >= maxTrackedAddresses { evict(from: &buckets, at: time) }
                bucket = Bucket(content: capacity, updated: time)
            }
            if bucket.content >= nanosecondsPerToken {
                bucket.content -= nanosecondsPerToken
                buckets[address] = bucket
                return nil
            }
            buckets[address] = bucket
            let wait = nanosecondsPerToken - bucket.content
            return max(1, Int((wait + 999_999_999) / 1_000_000_000))
        }
    }

    /// Addresses tracked now.
    package var trackedAddresses: Int { buckets.withLock { $0.count } }

    /// Whether `address` has a bucket (one that is not full, or not yet swept).
    package func isTracking(_ address: AddressPrefix) -> Bool { buckets.withLock { $0[address] != nil } }

    private func refilled(_ bucket: Bucket, at time: UInt64) -> Bucket {
        guard time > bucket.updated else { return bucket }
        return Bucket(content: min(capacity, bucket.content + min(capacity, time - bucket.updated)), updated: time)
    }

    /// Makes room for at least `evictionBatch` new buckets, so the scan runs at most once per batch: drops every
    /// full bucket, then the least recently used ones if that was not enough.
    private func evict(from buckets: inout [AddressPrefix: Bucket], at time: UInt64) {
        buckets = buckets.filter { refilled($0.value, at: time).content < capacity }
        let excess = buckets.count - (maxTrackedAddresses - evictionBatch)
        guard excess > 0 else { return }
        let oldest = buckets.sorted { $0.value.updated < $1.value.updated }.prefix(excess)
        for (address, _) in oldest { buckets[address] = nil }
    }
}
