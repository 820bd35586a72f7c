/// Several write jobs committed in one transaction, each isolated in a savepoint.
struct WriteBatch {
    let jobs: [WriteJob]

    /// What committing a batch came to.
    struct Outcome {
        /// The completions of the jobs whose changes were committed, not yet resumed.
        var committed: [WriteCompletion] = []
        /// Whether a write found no room (`SQLiteError.isOutOfRoom`): the writer then finishes a checkpoint, so that
        /// a WAL that cannot grow starts over from its beginning at the next write.
        var outOfRoom = false
    }

    /// Runs every job and commits. Callers whose job failed are resumed with its error here; those whose changes
    /// were committed are returned, for the pool to count before it resumes them.
    func commit(on database: Database) -> Outcome {
        var outcome = Outcome()
        func failed(_ error: any Error) -> any Error {
            if (error as? SQLiteError)?.isOutOfRoom == true { outcome.outOfRoom = true }
            return error
        }
        var succeeded: [(job: WriteJob, completion: WriteCompletion)] = []
        var remaining = jobs[...]
        while let job = remaining.first {
            if !database.isInsideTransaction {
                do {
                    try database.execute(sql: "BEGIN IMMEDIATE TRANSACTION")
                } catch {
                    let error = failed(error)
                    remaining.forEach { $0.fail(error) }
                    succeeded.forEach { $0.job.fail(error) }
                    return outcome
                }
            }
            remaining.removeFirst()
            do {
                let completion = try database.savepoint { try job.perform(database) }
                succeeded.append((job, completion))
            } catch {
                let error = failed(error)
                job.fail(error)
                if !database.isInsideTransaction {
                    // SQLite rolled the whole transaction back (e.g. SQLITE_FULL, SQLITE_IOERR): the earlier
                    // jobs of this batch are lost too. Report that; the next jobs start a new transaction.
                    succeeded.forEach { $0.job.fail(error) }
                    succeeded.removeAll()
                }
            }
        }
        guard !succeeded.isEmpty else {
            database.rollback()
            return outcome
        }
        do {
            try database.execute(sql: "COMMIT TRANSACTION")
        } catch {
            let error = failed(error)
            database.rollback()
            succeeded.forEach { $0.job.fail(error) }
            return outcome
        }
        outcome.committed = succeeded.map(\.completion)
        return outcome
    }
}
