import CSQLite
import Glibc

/// A copy of a live database made with SQLite's online backup API (https://sqlite.org/backup.html): owns the
/// destination connection and the `sqlite3_backup *`, and frees both in `deinit`.
///
/// The copy is taken inside one read transaction on the source connection, so it is one consistent snapshot even
/// while other connections (the server's, in another process) keep writing: in WAL mode a reader never blocks a
/// writer, and a backup that holds its snapshot is never restarted by their commits. Pages are copied
/// `pagesPerStep` at a time with a pause between steps, so the copy takes a bounded share of the disk.
final class OnlineBackup {
    private let destination: OpaquePointer  // sqlite3 *
    private let backup: OpaquePointer  // sqlite3_backup *
    private var finished = false

    /// Opens `destinationPath`, an empty file this process created, and starts a backup of `source` into it.
    init(source: Database, destinationPath: String) throws {
        var connection: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let code = sqlite3_open_v2(destinationPath, &connection, flags, nil)
        guard let connection else { throw SQLiteError(extendedCode: code, message: "cannot allocate a connection") }
        guard code == SQLITE_OK else {
            let error = SQLiteError(code: code, connection: connection, sql: nil)
            sqlite3_close_v2(connection)
            throw error
        }
        guard let backup = sqlite3_backup_init(connection, "main", source.handle, "main") else {
            let error = SQLiteError(code: sqlite3_errcode(connection), connection: connection, sql: nil)
            sqlite3_close_v2(connection)
            throw error
        }
        self.destination = connection
        self.backup = backup
    }

    deinit {
        if !finished { sqlite3_backup_finish(backup) }
        sqlite3_close_v2(destination)
    }

    /// Copies every page, `pagesPerStep` per call to `sqlite3_backup_step`, sleeping `pause` between calls.
    func copy(pagesPerStep: Int32, pause: Duration) throws {
        while true {
            let code = sqlite3_backup_step(backup, pagesPerStep)
            switch code {
            case SQLITE_DONE:
                finished = true
                let finish = sqlite3_backup_finish(backup)
                guard finish == SQLITE_OK else { throw SQLiteError(code: finish, connection: destination, sql: nil) }
                return
            case SQLITE_OK, SQLITE_BUSY, SQLITE_LOCKED:
                let (seconds, attoseconds) = pause.components
                var delay = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
                nanosleep(&delay, nil)
            default:
                throw SQLiteError(code: code, connection: destination, sql: nil)
            }
        }
    }

    /// `PRAGMA integrity_check` on the copy: nil when it answers `ok`, else its first complaint.
    func integrityProblem() throws -> String? {
        let answer = try fetchFirstColumn(sql: "PRAGMA integrity_check", as: String.self)
        return answer == "ok" ? nil : (answer ?? "no answer")
    }

    /// The first column of the first row of `sql` run on the copy (nil when there is no row).
    func fetchFirstColumn<T: DatabaseValueConvertible>(sql: String, as type: T.Type) throws -> T? {
        let statement = try Statement(connection: destination, sql: sql, persistent: false)
        return try statement.fetchOne { row -> T in try row[0] }
    }
}
