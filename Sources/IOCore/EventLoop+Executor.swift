import Dispatch
import Glibc

/// The loop as the task executor of its connections (SE-0417): `Task(executorPreference: loop)` runs the task's
/// jobs on the loop thread, between two `epoll_wait` calls.
///
/// A connection parked in `wait(for:events:deadline:idle:)` is resumed by the loop thread itself, so its job is
/// queued here without a system call and runs in the same loop iteration: reading, parsing, the responder and
/// the write all happen on the thread that saw the socket become ready, with no hop to Swift's cooperative pool
/// and back. Jobs queued from other threads (another subsystem's thread resuming its callers, a timer) wake the
/// loop through its eventfd, once per sleep. Responders must not block: long work belongs on another thread, as
/// SQLite's writer and the DNS resolver's thread do. After `stop()`, jobs run on Dispatch's global queue instead, so no
/// task is left suspended forever.
extension EventLoop: TaskExecutor {
    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if !addToRunningLoop({ $0.jobs.append(job) }) { runElsewhere([job]) }
    }

    /// Applies `add` to the state of a loop that has not stopped, and wakes the loop if it sleeps in `epoll_wait`,
    /// once per sleep, so it sees what was added; false, with nothing applied, once the loop has stopped.
    func addToRunningLoop(_ add: (inout State) -> Void) -> Bool {
        let (added, wake) = state.withLock { state -> (Bool, Bool) in
            guard !state.stopped else { return (false, false) }
            add(&state)
            defer { state.sleeping = false }
            return (true, state.sleeping)
        }
        if wake { wakeUp() }
        return added
    }

    /// Most rounds of newly queued jobs run before the loop looks at its sockets again.
    static let jobRoundsPerIteration = 16

    /// Runs the queued jobs, and the jobs they queue, for up to `jobRoundsPerIteration` rounds. `batch` is the
    /// loop's scratch array, kept between calls so no round allocates.
    func runJobs(_ batch: inout [UnownedJob]) {
        let executor = asUnownedTaskExecutor()
        for _ in 0..<Self.jobRoundsPerIteration {
            state.withLock { state in swap(&state.jobs, &batch) }
            guard !batch.isEmpty else { return }
            for job in batch { job.runSynchronously(on: executor) }
            batch.removeAll(keepingCapacity: true)
        }
    }

    /// Called by the loop thread as it stops: jobs still queued run elsewhere.
    func handOffJobs() {
        let left = state.withLock { state -> [UnownedJob] in
            defer { state.jobs = [] }
            return state.jobs
        }
        if !left.isEmpty { runElsewhere(left) }
    }

    private func runElsewhere(_ jobs: [UnownedJob]) {
        DispatchQueue.global().async { [self] in
            let executor = asUnownedTaskExecutor()
            for job in jobs { job.runSynchronously(on: executor) }
        }
    }
}
