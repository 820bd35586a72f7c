import Foundation

/// Runs `work`, which blocks (waits for a child process, reads a pipe, sleeps), on a thread of its own and
/// suspends until it returns. Every test of the parallel suite runs on Swift's cooperative pool, one thread per
/// core: a test that blocked one of them would stall every other test for as long.
package func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}
