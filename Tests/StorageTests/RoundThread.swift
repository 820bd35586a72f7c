import Dispatch
import Foundation
import Storage
import Synchronization

/// A thread that runs tasks' jobs in rounds, as an event loop does, and commits the writes they queued on a pool
/// at the end of each round (`DatabasePool.commitQueuedWrites`). Starts closed: jobs wait until `open()`, so that
/// tasks created before it run in one round.
final class RoundThread: TaskExecutor, Sendable {
    private struct State {
        var jobs: [UnownedJob] = []
        var open = false
        var stopped = false
    }

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(committingFor pool: DatabasePool) {
        Thread.detachNewThread { [self] in run(pool) }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        state.withLock { $0.jobs.append(job) }
        wake.signal()
    }

    /// Lets the queued jobs run, all in the next round.
    func open() {
        state.withLock { $0.open = true }
        wake.signal()
    }

    /// Ends the thread after its current round; the tasks on it must have finished.
    func stop() {
        state.withLock { $0.stopped = true }
        wake.signal()
        finished.wait()
    }

    private func run(_ pool: DatabasePool) {
        pool.commitWritesOnCurrentThread()
        while true {
            wake.wait()
            let (round, stopped) = state.withLock { state -> ([UnownedJob], Bool) in
                guard state.open else { return ([], state.stopped) }
                defer { state.jobs = [] }
                return (state.jobs, state.stopped)
            }
            for job in round { job.runSynchronously(on: asUnownedTaskExecutor()) }
            pool.commitQueuedWrites()
            if stopped {
                finished.signal()
                return
            }
        }
    }
}
