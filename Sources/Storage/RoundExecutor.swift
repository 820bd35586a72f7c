/// An executor that runs work in rounds on one thread, such as an HTTP server's event loop (a round: the jobs that
/// became ready between two waits for I/O), and can run a task on that thread when the current round ends, or
/// later.
///
/// Given one (`DatabaseConfiguration.roundExecutor`), a `DatabasePool` commits the writes queued from inside a
/// round at the end of that round, on the round's thread, together in one transaction: group commit with no
/// writer thread to wake and no second thread competing for the core. Writes that may wait (`WriteUrgency.mayWait`)
/// commit with the next write that does not, when the executor has nothing else to do, or after
/// `DatabaseConfiguration.commitWait`, whichever comes first.
/// Writes queued anywhere else go to the pool's writer thread as usual. Either way the pool decides when a write
/// commits, and every caller is resumed only after its commit.
package protocol RoundExecutor: Sendable {
    /// If the calling thread is running a round of this executor, arranges for `task` to run on it once, when the
    /// round ends, and returns `true`: tasks given the same `key` during one round run once. On any other thread
    /// it does nothing and returns `false`.
    ///
    /// - Parameters:
    ///   - key: identifies the task; a second call with the same key in the same round adds nothing.
    ///   - task: runs on the round's thread after the round's jobs; it must be short and must not block for long.
    func runAtEndOfCurrentRound(key: ObjectIdentifier, _ task: @escaping @Sendable () -> Void) -> Bool

    /// If the calling thread is running a round of this executor, arranges for `task` to run on it once `delay`
    /// has passed, between two rounds, and returns `true`; on any other thread it does nothing and returns `false`.
    /// When the executor stops first, `task` runs as it stops.
    func runOnCurrentThread(after delay: Duration, _ task: @escaping @Sendable () -> Void) -> Bool

    /// If the calling thread is running a round of this executor, arranges for `task` to run on it once, when the
    /// executor has no work left and would wait, or after `delay` between two rounds if it stays busy that long, and
    /// returns `true`: tasks given the same `key` meanwhile run once. On any other thread, or for an executor that
    /// cannot tell when it is idle, it does nothing and returns `false`.
    func runWhenIdle(key: ObjectIdentifier, atTheLatestAfter delay: Duration, _ task: @escaping @Sendable () -> Void)
        -> Bool
}

extension RoundExecutor {
    /// An executor that cannot tell when it is idle: a pool's writes that may wait use a timer instead.
    package func runWhenIdle(key: ObjectIdentifier, atTheLatestAfter delay: Duration,
                             _ task: @escaping @Sendable () -> Void) -> Bool { false }
}
