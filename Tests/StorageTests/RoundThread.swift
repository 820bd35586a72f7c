import Dispatch
import Foundation
import Glibc
import IOCore
import Storage
import Synchronization

/// A thread that runs tasks' jobs in rounds, as an event loop does, and runs the tasks given to
/// `runAtEndOfCurrentRound` at the end of each round, and those given to `runOnCurrentThread(after:)` between rounds
/// once due (all of them when it stops). Starts closed: jobs wait until `open()`, so that tasks created before it
/// run in one round. Made with `tellsIdle`, it runs the tasks given to `runWhenIdle` after a round that leaves no
/// job waiting; without, it cannot tell, as `RoundExecutor`'s default says.
final class RoundThread: TaskExecutor, RoundExecutor, Sendable {
    private struct State {
        var jobs: [UnownedJob] = []
        var open = false
        var stopped = false
        var thread: pthread_t?
    }

    private let state = Mutex(State())
    /// Touched only on the round's own thread.
    private let endOfRound = Mutex<[(key: ObjectIdentifier, task: @Sendable () -> Void)]>([])
    /// Tasks to run once their time (`DispatchTime`) has come; touched only on the round's own thread.
    private let delayed = Mutex<[(due: DispatchTime, task: @Sendable () -> Void)]>([])
    /// Tasks waiting for a round that leaves no job behind; touched only on the round's own thread.
    private let whenIdle = Mutex<[(key: ObjectIdentifier, task: @Sendable () -> Void)]>([])
    private let tellsIdle: Bool
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(tellsIdle: Bool = false) {
        self.tellsIdle = tellsIdle
        let started = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [self] in
            state.withLock { $0.thread = pthread_self() }
            started.signal()
            run()
        }
        started.wait()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        state.withLock { $0.jobs.append(job) }
        wake.signal()
    }

    private var isCurrent: Bool {
        guard let thread = state.withLock({ $0.thread }) else { return false }
        return pthread_equal(thread, pthread_self()) != 0
    }

    func runOnCurrentThread(after delay: Duration, _ task: @escaping @Sendable () -> Void) -> Bool {
        guard isCurrent else { return false }
        let nanoseconds = Int(clamping: MonotonicClock.nanoseconds(delay))
        delayed.withLock { $0.append((.now() + .nanoseconds(nanoseconds), task)) }
        return true
    }

    /// How many tasks wait for their time.
    var delayedCount: Int { delayed.withLock { $0.count } }

    func runAtEndOfCurrentRound(key: ObjectIdentifier, _ task: @escaping @Sendable () -> Void) -> Bool {
        guard isCurrent else { return false }
        endOfRound.withLock { tasks in
            if !tasks.contains(where: { $0.key == key }) { tasks.append((key, task)) }
        }
        return true
    }

    func runWhenIdle(key: ObjectIdentifier, atTheLatestAfter delay: Duration,
                     _ task: @escaping @Sendable () -> Void) -> Bool {
        guard tellsIdle, isCurrent else { return false }
        whenIdle.withLock { tasks in
            if !tasks.contains(where: { $0.key == key }) { tasks.append((key, task)) }
        }
        return true
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

    private func run() {
        while true {
            let earliest = delayed.withLock { $0.map(\.due).min() }
            if let earliest {
                _ = wake.wait(timeout: earliest)
            } else {
                wake.wait()
            }
            let (round, stopped) = state.withLock { state -> ([UnownedJob], Bool) in
                guard state.open else { return ([], state.stopped) }
                defer { state.jobs = [] }
                return (state.jobs, state.stopped)
            }
            for job in round { job.runSynchronously(on: asUnownedTaskExecutor()) }
            let tasks = endOfRound.withLock { tasks in
                defer { tasks = [] }
                return tasks
            }
            for entry in tasks { entry.task() }
            if stopped || state.withLock({ $0.jobs.isEmpty }) {
                let idle = whenIdle.withLock { tasks in
                    defer { tasks = [] }
                    return tasks
                }
                for entry in idle { entry.task() }
            }
            let now = DispatchTime.now()
            let due = delayed.withLock { delayed in
                let due = delayed.filter { stopped || $0.due <= now }
                delayed.removeAll { stopped || $0.due <= now }
                return due
            }
            for entry in due { entry.task() }
            if stopped {
                finished.signal()
                return
            }
        }
    }
}
