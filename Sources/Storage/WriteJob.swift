import IOCore

/// One queued write: the caller's closure with its continuation, type-erased so jobs of any result type queue together.
struct WriteJob: Sendable {
    /// Runs alone and outside any transaction (migrations); never batched.
    let exclusive: Bool
    /// Runs the body and returns what will resume the caller once the changes are committed.
    let perform: @Sendable (Database) throws -> WriteCompletion
    /// Resumes the caller with an error.
    let fail: @Sendable (any Error) -> Void
    /// When the write was queued (`MonotonicClock`): its wait for another connection's lock counts from here.
    let queuedAt = MonotonicClock.now()

    init<T: Sendable>(
        body: @escaping @Sendable (Database) throws -> T,
        continuation: CheckedContinuation<T, any Error>,
        exclusive: Bool
    ) {
        self.exclusive = exclusive
        self.perform = { database in
            let value = try body(database)
            return WriteCompletion { continuation.resume(returning: value) }
        }
        self.fail = { continuation.resume(throwing: $0) }
    }

    /// Runs an exclusive job: no surrounding transaction; anything it leaves open is rolled back.
    func runAlone(_ database: Database) {
        do {
            let completion = try perform(database)
            if database.isInsideTransaction {
                database.rollback()
                fail(SQLiteError.misuse("a writeWithoutTransaction closure left a transaction open"))
            } else {
                completion.resume()
            }
        } catch {
            database.rollback()
            fail(error)
        }
    }
}

/// Resumes a caller whose write committed.
struct WriteCompletion: Sendable {
    let resume: @Sendable () -> Void
}
