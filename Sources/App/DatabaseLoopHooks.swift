import HTTPCore
import Storage

/// Group commit on the event-loop threads: each loop thread commits the writes its requests queued (sign-ins,
/// logouts, sessions) at the end of its iteration, on itself, instead of waking the database's writer thread.
///
/// On one core this takes the writer thread's wait for the core out of every sign-in: the tail of the latency
/// distribution shrinks at the same rate (BENCHMARKS.md, "Group commit on the loop threads").
///
/// The database is held weakly: it belongs to the app's services, and the server holding it would close it (and
/// checkpoint its WAL) whenever the server happens to be released last, even while the process exits.
final class DatabaseLoopHooks: EventLoopHooks {
    private weak let database: DatabasePool?

    init(database: DatabasePool) {
        self.database = database
    }

    func loopThreadStarted() {
        database?.commitWritesOnCurrentThread()
    }

    func loopIterationEnded() {
        database?.commitQueuedWrites()
    }
}
