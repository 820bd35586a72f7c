import HTTPCore
import Storage

/// Group commit on the event-loop threads: each loop thread commits the writes its requests queued (sign-ins,
/// logouts, sessions) at the end of its iteration, on itself, instead of waking the database's writer thread.
///
/// On one core this takes the writer thread's wait for the core out of every sign-in: the tail of the latency
/// distribution shrinks at the same rate (BENCHMARKS.md, "Group commit on the loop threads").
struct DatabaseLoopHooks: EventLoopHooks {
    let database: DatabasePool

    func loopThreadStarted() {
        database.commitWritesOnCurrentThread()
    }

    func loopIterationEnded() {
        database.commitQueuedWrites()
    }
}
