import Dispatch
import Foundation
import Synchronization
import Testing
@testable import Storage

/// `readerCount` bounds the reads running at once: N run together, read N + 1 waits for one to finish.
struct ReaderLimitTests {
    final class Gate: Sendable {
        let running = Atomic<Int>(0)
        let release = DispatchSemaphore(value: 0)
    }

    @Test(arguments: [1, 3])
    func readerCountBoundsConcurrentReads(readerCount: Int) async throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.path(), configuration: DatabaseConfiguration(readerCount: readerCount))
        let gate = Gate()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<(readerCount + 1) {
                group.addTask {
                    try await pool.read { _ in
                        gate.running.add(1, ordering: .relaxed)
                        gate.release.wait()
                        gate.running.subtract(1, ordering: .relaxed)
                    }
                }
            }
            while gate.running.load(ordering: .relaxed) < readerCount { try await Task.sleep(for: .milliseconds(1)) }
            try await Task.sleep(for: .milliseconds(50))
            #expect(gate.running.load(ordering: .relaxed) == readerCount)  // N at once, the N + 1st waits
            gate.release.signal()
            while gate.running.load(ordering: .relaxed) < readerCount { try await Task.sleep(for: .milliseconds(1)) }
            for _ in 0..<readerCount { gate.release.signal() }
            try await group.waitForAll()
        }
        #expect(gate.running.load(ordering: .relaxed) == 0)
    }
}
