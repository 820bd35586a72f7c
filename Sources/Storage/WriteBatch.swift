/// Several write jobs committed in one transaction, each isolated in a savepoint.
struct WriteBatch {
    let jobs: [WriteJob]

    /// Runs every job and commits. Callers whose job failed are resumed with its error here; those whose changes
    /// were committed are returned, for the pool to count before it resumes them.
    ///
    /// - Returns: the completions of the jobs whose changes were committed, not yet resumed.
    func commit(on database: Database) -> [WriteCompletion] {
        var succeeded: [(job: WriteJob, completion: WriteCompletion)] = []
        var remaining = jobs[...]
        while let job = remaining.first {
            if !database.isInsideTransaction {
                do {
                    try database.execute(sql: "BEGIN IMMEDIATE TRANSACTION")
                } catch {
                    remaining.forEach { $0.fail(error) }
                    succeeded.forEach { $0.job.fail(error) }
                    return []
                }
            }
            remaining.removeFirst()
            do {
                let completion = try database.savepoint { try job.perform(database) }
                succeeded.append((job, completion))
            } catch {
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
            return []
        }
        do {
            try database.execute(sql: "COMMIT TRANSACTION")
        } catch {
            database.rollback()
            succeeded.forEach { $0.job.fail(error) }
            return []
        }
        return succeeded.map(\.completion)
    }
}
