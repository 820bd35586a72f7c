import HTTPCore
import Storage

/// Group commit on the event-loop threads: each loop thread commits the writes its requests queued (sign-ins,
/// logouts, sessions) at the end of its iteration, on itself, instead of waking the database's writer thread.
///
/// On one core this takes the writer thread's wait for the core out of every sign-in: measured at 64 connections,
/// p99 over mean latency fell from 1.69-1.74 to 1.29-1.37 for returning users and from 1.62-1.67 to 1.17-1.20 for
/// new users, at the same rate (BENCHMARKS.md).
struct DatabaseLoopHooks: EventLoopHooks {
    let database: DatabasePool

    func loopThreadStarted() {
        database.commitWritesOnCurrentThread()
    }

    func loopIterationEnded() {
        database.commitQueuedWrites()
    }
}
