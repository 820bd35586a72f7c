import Dispatch

/// A `Database` confined to its own serial dispatch queue: the only way the pool reaches a connection.
///
/// `@unchecked Sendable` because `database` is touched only from `queue` (GRDB.swift's `SerializedDatabase`
/// pattern): work runs on Dispatch's threads, or on the thread that called `sync` while it waits (an event loop
/// committing its own writes), never on a thread of Swift's cooperative pool.
final class SerialConnection: @unchecked Sendable {
    private let database: Database
    private let queue: DispatchQueue

    init(database: Database, label: String) {
        self.database = database
        self.queue = DispatchQueue(label: label, qos: .userInitiated)
    }

    /// Runs `work` on the connection's queue and waits for it: from another connection's queue or an event-loop
    /// thread, never from a task.
    func sync<T>(_ work: (Database) -> T) -> T {
        queue.sync { work(database) }
    }

    /// Runs `work` on the calling thread, now: only for a holder that owns the connection for the time being
    /// (a reader checked out of `ReaderSet`, whose queue has nothing queued meanwhile).
    func runHere<T>(_ work: (Database) throws -> T) rethrows -> T {
        try work(database)
    }

    /// Runs `work` on the connection's queue, later; `work` must not escape the database.
    func async(_ work: @escaping @Sendable (Database) -> Void) {
        queue.async { [self] in work(self.database) }
    }
}
