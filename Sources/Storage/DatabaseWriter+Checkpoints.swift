/// WAL checkpoints beside the writer: each time the WAL grew by `DatabaseConfiguration.checkpointThresholdPages`, a
/// checkpoint runs on a connection of its own, so commits do not wait for its `fsync`; at
/// `DatabaseConfiguration.walLimitBytes` the writer waits for one to finish, so the WAL can start over.
extension DatabaseWriter {
    enum CheckpointAction { case none, beside, onWriter }

    /// Decides after a commit: a checkpoint beside the writer each time the WAL grew by the threshold, and a
    /// finishing one, with the writer waiting, once the WAL holds `walLimitPages`, even while one runs beside it
    /// (the writer then waits for that one first), so the WAL never outgrows the limit by more than one batch.
    ///
    /// The writer's wait is one checkpoint of the frames written since the last one beside it: two `fdatasync`
    /// calls of a few hundred KiB (BENCHMARKS.md has the times measured).
    func checkpointAction(_ database: Database, isCheckpointing: inout Bool) -> CheckpointAction {
        guard checkpointThreshold > 0, database.isOpen else { return .none }
        let monitor = database.walMonitor
        if monitor.pages < monitor.pagesAtLastCheckpoint { monitor.pagesAtLastCheckpoint = 0 }  // the WAL restarted
        if monitor.pages >= walLimitPages { return .onWriter }
        guard !isCheckpointing else { return .none }
        guard monitor.pages - monitor.pagesAtLastCheckpoint >= checkpointThreshold else {
            return .none
        }
        monitor.pagesAtLastCheckpoint = monitor.pages
        isCheckpointing = true
        return .beside
    }

    /// Completes the backfill while the writer waits between transactions, so the WAL can start over from its
    /// beginning at the next write.
    ///
    /// A checkpoint beside a busy writer never catches up with the last frames, and SQLite restarts the WAL only
    /// once every frame is backfilled. The writer waits for this one on the checkpointer's queue, after any
    /// checkpoint already running there (the writer's queue is a Dispatch thread, so waiting blocks no task).
    func finishCheckpoint(_ database: Database) {
        guard let checkpointer, checkpointer.sync({ (try? $0.checkpoint()) != nil }) else { return }
        database.walMonitor.pages = 0
        database.walMonitor.pagesAtLastCheckpoint = 0
        queue.withLock { $0.statistics.checkpoints += 1 }
    }

    /// Backfills the WAL into the database file on the checkpointer connection, beside the writer, then syncs the
    /// database file, so that the writer's own checkpoint (`finishCheckpoint`) has only the latest pages to sync.
    func checkpoint(_ database: Database) {
        let succeeded = (try? database.checkpoint()) != nil && (try? database.syncDatabaseFile()) != nil
        queue.withLock { queue in
            queue.isCheckpointing = false
            if succeeded { queue.statistics.checkpoints += 1 }
        }
    }
}
