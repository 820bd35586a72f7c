import Synchronization

/// How long calls to one of Apple's endpoints took: counts per bucket and their sum, a Prometheus histogram's data.
package final class AppleCallDurations: Sendable {
    /// Upper bounds of the buckets, in seconds: a round trip across the world to `APPLE_TIMEOUT`.
    package static let bounds: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    private let state = Mutex<(buckets: [Int], sumNanoseconds: Int)>(([Int](repeating: 0, count: bounds.count + 1), 0))

    package init() {}

    /// Calls per bucket (the last is +Inf) and their total time in nanoseconds.
    package var snapshot: (buckets: [Int], sumNanoseconds: Int) { state.withLock { $0 } }

    func record(nanoseconds: Int) {
        let seconds = Double(nanoseconds) / 1e9
        let bucket = Self.bounds.firstIndex { seconds <= $0 } ?? Self.bounds.count
        state.withLock { state in
            state.buckets[bucket] += 1
            state.sumNanoseconds += nanoseconds
        }
    }
}
