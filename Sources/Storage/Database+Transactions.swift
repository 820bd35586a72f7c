import CSQLite
import IOCore

/// How a transaction takes its locks (https://sqlite.org/lang_transaction.html).
package enum TransactionKind: Sendable {
    /// Locks are taken at the first read or write; for read-only snapshots.
    case deferred
    /// The write lock is taken at `BEGIN`, so the transaction never fails with `SQLITE_BUSY` half-way; for writes.
    case immediate
}

extension Database {
    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws (then rethrows).
    ///
    /// Inside an open transaction this becomes a savepoint, so transactions nest.
    /// - Parameters:
    ///   - kind: `.immediate` (the default) for writes, `.deferred` for read snapshots.
    ///   - body: the work; it must not commit or roll back itself.
    package func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        if isInsideTransaction { return try savepoint(body) }
        switch kind {
        case .deferred: try execute(sql: "BEGIN DEFERRED TRANSACTION")
        case .immediate: try execute(sql: "BEGIN IMMEDIATE TRANSACTION")
        }
        let value: T
        do {
            value = try body()
            try execute(sql: "COMMIT TRANSACTION")
        } catch {
            rollback()
            throw error
        }
        return value
    }

    /// Runs `body` inside a savepoint: released when it returns, rolled back to when it throws (then rethrows).
    ///
    /// Changes made by `body` become permanent only when the enclosing transaction commits.
    package func savepoint<T>(_ body: () throws -> T) throws -> T {
        try execute(sql: "SAVEPOINT siwa")
        let value: T
        do {
            value = try body()
        } catch {
            if isInsideTransaction {
                try? execute(sql: "ROLLBACK TO SAVEPOINT siwa")
                try? execute(sql: "RELEASE SAVEPOINT siwa")
            }
            throw error
        }
        try execute(sql: "RELEASE SAVEPOINT siwa")
        return value
    }

    /// `BEGIN IMMEDIATE` without waiting for the write lock: false, and no transaction, when another connection (a
    /// process beside the server: `sqlite3`, an operator's command) holds it; the busy timeout is then for a thread
    /// that may block to wait out.
    /// - Throws: what `BEGIN` fails with otherwise.
    func beginImmediateIfFree() throws -> Bool {
        do {
            try beginImmediate(waitingAtMost: 0)
            return true
        } catch let error as SQLiteError where error.reason == .busy {
            return false
        }
    }

    /// `BEGIN IMMEDIATE`, waiting at most `milliseconds` (not the connection's busy timeout) for another
    /// connection's write lock; none when 0.
    /// - Throws: `SQLiteError` `.busy` when the lock outlasted the wait; what `BEGIN` fails with otherwise.
    func beginImmediate(waitingAtMost milliseconds: Int) throws {
        busyWait.timeoutMilliseconds = milliseconds
        defer { busyWait.timeoutMilliseconds = busyTimeoutMilliseconds }
        try execute(sql: "BEGIN IMMEDIATE TRANSACTION")
    }

    /// Rolls back the open transaction, if any; SQLite may already have rolled it back after some errors.
    func rollback() {
        if isInsideTransaction { try? execute(sql: "ROLLBACK TRANSACTION") }
    }
}
