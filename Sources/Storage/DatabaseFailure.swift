/// What a failed statement means, the same whichever engine raised it: a unique violation is `.uniqueConstraint`
/// from SQLite and from PostgreSQL alike, and a database that cannot serve now is `.unavailable` from both. The
/// layers above ask this, never the engines' error types.
package protocol DatabaseFailure: Error {
    /// The engine-neutral category.
    var failureKind: DatabaseFailureKind { get }
    /// The position in a write's statements of the one that failed, when known.
    var statementIndex: Int? { get }
    /// What went wrong, for a log line: for `.unavailable`, what is wrong with the database and, where the engine
    /// can tell, what to change. Never holds a bound value or a password.
    var logCause: String { get }
    /// The engine's own codes for the log line's metadata: `sqlite_code`, or `sqlstate`.
    var logMetadata: [String: String] { get }
}

/// The categories of `DatabaseFailure`.
package enum DatabaseFailureKind: Sendable, Equatable {
    case uniqueConstraint, foreignKeyConstraint
    /// The database cannot serve now and may later (the caller answers 503): SQLite locked past the busy timeout,
    /// the disk full or failing, the file read-only; PostgreSQL unreachable, restarting, read-only (a standby),
    /// behind a pooler that lost the prepared statements, or a transaction rolled back by a conflict.
    case unavailable
    case other
}

extension SQLiteError: DatabaseFailure {
    package var failureKind: DatabaseFailureKind {
        switch reason {
        case .uniqueConstraint: .uniqueConstraint
        case .foreignKeyConstraint: .foreignKeyConstraint
        case .busy, .full, .ioError, .readOnly: .unavailable
        case .other: .other
        }
    }

    package var logCause: String {
        switch reason {
        case .busy: "locked by another connection for longer than the busy timeout (DATABASE_BUSY_TIMEOUT_MS)"
        case .full: "disk full or file size limit reached (SQLITE_FULL)"
        case .readOnly where isMoved: message
        case .readOnly: "the database file cannot be written (SQLITE_READONLY)"
        case .ioError where isWriteFailure:
            "a write failed: disk full, file size limit (ulimit -f) or device error (SQLITE_IOERR_WRITE)"
        case .ioError: "the operating system failed a file operation (SQLITE_IOERR or SQLITE_CANTOPEN)"
        case .uniqueConstraint, .foreignKeyConstraint, .other: "SQLite: \(message)"
        }
    }

    package var logMetadata: [String: String] { ["sqlite_code": "\(extendedCode)", "sqlite_message": message] }
}

extension PostgresError: DatabaseFailure {
    package var failureKind: DatabaseFailureKind {
        switch reason {
        case .uniqueConstraint: .uniqueConstraint
        case .foreignKeyConstraint: .foreignKeyConstraint
        case .unavailable, .conflict, .misconfigured: .unavailable
        case .other: .other
        }
    }

    package var logCause: String { "PostgreSQL: \(message)" + (hint.map { " (\($0))" } ?? "") }

    package var logMetadata: [String: String] { ["sqlstate": sqlState] }
}
