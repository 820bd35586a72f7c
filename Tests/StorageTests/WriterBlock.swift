import Dispatch
import Storage
import Synchronization

/// Holds a pool's writer inside a write until released, so the writes queued meanwhile form one batch.
final class WriterBlock: Sendable {
    private final class Signals: Sendable {
        let started = Atomic<Bool>(false)
        let release = DispatchSemaphore(value: 0)
    }

    private let signals = Signals()
    private let task: Task<Void, any Error>

    /// Queues the blocking write and returns once the writer is inside it.
    init(_ pool: DatabasePool) async throws {
        let signals = self.signals
        task = Task {
            try await pool.write { _ in
                signals.started.store(true, ordering: .releasing)
                signals.release.wait()
            }
        }
        while !signals.started.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(1)) }
    }

    /// Lets the blocking write commit and waits for it.
    func finish() async throws {
        signals.release.signal()
        try await task.value
    }
}
