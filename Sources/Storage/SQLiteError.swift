import CSQLite

/// An error reported by SQLite.
///
/// Carries the extended result code, SQLite's message and the SQL text of the statement that failed.
/// Bound values are never recorded, so the error is safe to log even when a statement carried a token hash.
public struct SQLiteError: Error, Equatable, CustomStringConvertible {
    /// The failures callers handle differently from the rest.
    public enum Reason: Equatable, Sendable {
        /// A `UNIQUE` or `PRIMARY KEY` constraint was violated (`SQLITE_CONSTRAINT_UNIQUE`, `_PRIMARYKEY`).
        case uniqueConstraint
        /// A `FOREIGN KEY` constraint was violated (`SQLITE_CONSTRAINT_FOREIGNKEY`).
        case foreignKeyConstraint
        /// Another connection held a conflicting lock past the busy timeout (`SQLITE_BUSY`, `SQLITE_LOCKED`).
        case busy
        /// The disk is full or a file reached its size limit (`SQLITE_FULL`; `EFBIG` under `ulimit -f` maps here).
        case full
        /// The file cannot be written (`SQLITE_READONLY`: permissions, a read-only mount).
        case readOnly
        /// The operating system failed a read, write, lock or open (`SQLITE_IOERR`, `SQLITE_CANTOPEN`).
        case ioError
        /// Anything else; see `extendedCode`.
        case other
    }

    /// The extended result code, e.g. 2067 for `SQLITE_CONSTRAINT_UNIQUE`.
    public var extendedCode: Int32
    /// SQLite's message, or this module's for errors it raises itself.
    public var message: String
    /// The SQL of the statement that failed, when there was one.
    public var sql: String?
    /// In a `DatabaseClient` write, the position of the statement that failed.
    public var statementIndex: Int?

    public init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    /// The primary result code (the low byte of the extended code), e.g. `SQLITE_CONSTRAINT`.
    public var primaryCode: Int32 { extendedCode & 0xFF }

    /// The category of this error.
    public var reason: Reason {
        switch extendedCode {
        case CSQLITE_CONSTRAINT_UNIQUE, CSQLITE_CONSTRAINT_PRIMARYKEY: .uniqueConstraint
        case CSQLITE_CONSTRAINT_FOREIGNKEY: .foreignKeyConstraint
        default:
            switch primaryCode {
            case SQLITE_BUSY, SQLITE_LOCKED: .busy
            case SQLITE_FULL: .full
            case SQLITE_READONLY: .readOnly
            case SQLITE_IOERR, SQLITE_CANTOPEN: .ioError
            default: .other
            }
        }
    }

    /// Whether a write to a file failed (`SQLITE_IOERR_WRITE`): what SQLite reports for a full disk it did not
    /// see coming, `EFBIG` past `ulimit -f`, or a device error.
    public var isWriteFailure: Bool { extendedCode == CSQLITE_IOERR_WRITE }

    /// Whether a write found no room: the disk is full or a file reached its size limit (`SQLITE_FULL`, or a
    /// failed write). A WAL that cannot grow can still start over from its beginning once checkpointed.
    public var isOutOfRoom: Bool { reason == .full || isWriteFailure }

    /// Whether the database file could not be opened or created (`SQLITE_CANTOPEN`): a missing folder, no
    /// permission, a folder where the file should be.
    public var isCannotOpen: Bool { primaryCode == SQLITE_CANTOPEN }

    /// Whether SQLite could not make a file beside the database because its folder is not writable
    /// (`SQLITE_READONLY_DIRECTORY`): the `-wal` and `-shm` of WAL mode.
    public var isReadOnlyDirectory: Bool { extendedCode == CSQLITE_READONLY_DIRECTORY }

    public var description: String {
        var text = "SQLite error \(extendedCode): \(message)"
        if let sql { text += " (while executing `\(SQL.oneLine(sql))`)" }
        return text
    }
}

extension SQLiteError {
    /// The error for `code` on `connection`, reading SQLite's message right away, before another call replaces it.
    init(code: Int32, connection: OpaquePointer?, sql: String?) {
        let extended = connection.map { sqlite3_extended_errcode($0) } ?? code
        // The connection's error code can be stale for codes raised outside a statement (a backup step's); trust
        // `code` then, and SQLite's text for it: the connection's message said "not an error" for a full disk (found
        // by an audit).
        let useExtended = extended & 0xFF == code & 0xFF
        let message = (useExtended ? connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } : nil)
            ?? String(cString: sqlite3_errstr(code))
        self.init(extendedCode: useExtended ? extended : code, message: message, sql: sql)
    }

    /// An error raised by this module rather than SQLite (misuse, type mismatch), with `SQLITE_MISUSE` or `code`.
    static func misuse(_ message: String, sql: String? = nil, code: Int32 = SQLITE_MISUSE) -> SQLiteError {
        SQLiteError(extendedCode: code, message: message, sql: sql)
    }

    /// The error of work given to a pool after `DatabasePool.close()`: the server is shutting down.
    static func closed(_ path: String) -> SQLiteError {
        misuse("\(path) is closed: the server is shutting down")
    }
}
