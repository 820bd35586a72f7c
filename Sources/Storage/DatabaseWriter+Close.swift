/// The writer's end, at a clean shutdown: the writes already queued commit, then the WAL is checkpointed whole and
/// truncated and the writer's connections close.
extension DatabaseWriter {
    /// Refuses every write submitted from now on (`SQLiteError.closed`), commits those queued before, closes the
    /// checkpointer (after any checkpoint it runs), checkpoints the WAL into the database file and truncates it
    /// (`SQLITE_CHECKPOINT_TRUNCATE`; not with `checkpointsOnClose` off), then closes the writer's connection, and
    /// returns. A second call returns at
    /// once.
    ///
    /// Close the pool's readers first: a read transaction left open would hold the checkpoint back.
    func close() async {
        try? await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let job = WriteJob(body: { [checkpointer, checkpointsOnClose] database in
                checkpointer?.sync { $0.close() }
                if checkpointsOnClose { try? database.checkpointTruncating() }
                database.close()
            }, continuation: continuation, exclusive: true)
            let startDrain = queue.withLock { queue -> Bool? in
                guard !queue.isClosed else { return nil }
                queue.isClosed = true
                queue.pending.append(job)
                return queue.claimDrain()
            }
            guard let startDrain else { return job.fail(SQLiteError.closed(path)) }
            if startDrain { connection.async { [self] database in drain(database) } }
        }
    }
}
