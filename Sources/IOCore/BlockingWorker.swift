import Dispatch
import Synchronization

/// One thread for the calls that block and have no non-blocking form (`getaddrinfo(3)`): they run here, one at a
/// time and in order, so no event loop thread ever makes them and the number of threads stays fixed.
package final class BlockingWorker: Sendable {
    /// The jobs waiting for the thread; shared by the worker and its thread.
    private final class Queue: Sendable {
        struct State {
            var jobs: [@Sendable () -> Void] = []
            var stopped = false
        }

        let state = Mutex(State())
        let available = DispatchSemaphore(value: 0)

        func work() {
            while true {
                available.wait()
                let (jobs, stopped) = state.withLock { state in
                    defer { state.jobs = [] }
                    return (state.jobs, state.stopped)
                }
                for job in jobs {
                    EventLoop.assertNotInEventLoop()
                    job()
                }
                if stopped { return }
            }
        }
    }

    private let queue = Queue()
    private let thread: LoopThread

    /// Starts the worker's thread.
    package init() {
        thread = LoopThread { [queue] in queue.work() }
    }

    deinit { stop() }

    /// Runs `body` on the worker's thread and returns its result; the calling task waits holding no thread.
    /// - Throws: what `body` throws; `CancellationError` once the worker has stopped.
    package func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let queued = queue.state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.jobs.append { continuation.resume(with: Result { try body() }) }
                return true
            }
            if queued {
                queue.available.signal()
            } else {
                continuation.resume(throwing: CancellationError())
            }
        }
    }

    /// Queues `job` to run on the worker's thread and returns at once; false once the worker has stopped.
    @discardableResult
    package func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        let queued = queue.state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.jobs.append(job)
            return true
        }
        if queued { queue.available.signal() }
        return queued
    }

    /// Ends the thread once the jobs already queued have run.
    package func stop() {
        let wasRunning = queue.state.withLock { state -> Bool in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard wasRunning else { return }
        queue.available.signal()
        thread.join()
    }
}
