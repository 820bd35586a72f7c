import CSQLite
import Glibc
import IOCore
import Synchronization

/// Notices that the files a pool opened are no longer the ones at their paths: the database file replaced (a backup
/// copied over it with `mv`, a symlink pointed elsewhere) or deleted, or its `-wal` deleted or replaced, while the
/// server runs.
///
/// SQLite goes on with the files it has open (in WAL mode it does not look, unlike its rollback journal's
/// `SQLITE_READONLY_DBMOVED`): what it commits then lands in a file no one will open again, and is gone at the next
/// start; a `-wal` deleted under it is one that another process no longer shares. So once a check finds a change, the
/// pool refuses every read and write (`SQLiteError.moved`: 503 with the reason in the log, `/ready` 503) until the
/// server restarts and opens what is at the path now. The README's "Backup and restore" says to stop the server
/// before a restore; this is for when that was forgotten.
///
/// A file is known by its device and inode (`stat(2)`, following symlinks): a rename over it, a deletion or a new
/// symlink target changes them; `truncate` and a checkpoint do not.
final class DatabaseFileWatch: Sendable {
    /// The database file's path as configured (a symlink is followed at each check) and its `-wal`, beside the file
    /// SQLite resolved the path to.
    let databasePath: String
    let walPath: String
    private let database: FileIdentity?
    private let wal: Mutex<FileIdentity?>
    /// What the first check that found a change found; every later call fails with it.
    private let change: Mutex<SQLiteError?>
    /// Whether `change` is set, read without the lock on every read.
    private let changed = Atomic<Bool>(false)
    /// `MonotonicClock` nanoseconds of the last check by `checkNowAndThen()`.
    private let lastCheck = Atomic<UInt64>(0)
    /// Reads look again at most this often (`checkNowAndThen()`); writes look before every commit.
    static let readCheckInterval: Duration = .seconds(1)

    /// Records the files `database`, the pool's writer connection in WAL mode, has open.
    init(path: String, writer database: Database) {
        self.databasePath = path
        let resolved = sqlite3_db_filename(database.handle, "main").map { String(cString: $0) }
        self.walPath = (resolved.flatMap { $0.isEmpty ? nil : $0 } ?? path) + "-wal"
        self.database = FileIdentity(path: path)
        self.wal = Mutex(FileIdentity(path: walPath))
        self.change = Mutex(nil)
    }

    /// `SQLiteError.moved` when a file changed, now or at an earlier check, else nil: two `stat(2)` calls, before
    /// each commit.
    func check() -> SQLiteError? {
        if let change = change.withLock({ $0 }) { return change }
        guard let database else { return nil }
        var error: SQLiteError?
        if FileIdentity(path: databasePath) != database {
            error = .moved(databasePath, what: "the database file")
        } else if let found = FileIdentity(path: walPath) {
            let recorded = wal.withLock { recorded -> FileIdentity in
                if recorded == nil { recorded = found }
                return recorded ?? found
            }
            if found != recorded { error = .moved(walPath, what: "the database's -wal file") }
        } else if wal.withLock({ $0 }) != nil {
            error = .moved(walPath, what: "the database's -wal file")
        }
        guard let error else { return nil }
        defer { changed.store(true, ordering: .releasing) }
        return change.withLock { change -> SQLiteError in
            if change == nil { change = error }
            return change ?? error
        }
    }

    /// `check()` at most once per `readCheckInterval`, else only what an earlier check found: for reads, which a
    /// moved file cannot lose data to, on paths where two `stat(2)` calls each would show.
    func checkNowAndThen() -> SQLiteError? {
        let now = MonotonicClock.now()
        let last = lastCheck.load(ordering: .relaxed)
        if MonotonicClock.elapsed(from: last, to: now) >= MonotonicClock.nanoseconds(Self.readCheckInterval),
           lastCheck.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged
        {
            return check()
        }
        return changed.load(ordering: .acquiring) ? change.withLock { $0 } : nil
    }
}

/// A file's device and inode number.
struct FileIdentity: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64

    /// The identity of the file at `path` (symlinks followed), or nil when there is none.
    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        self.device = UInt64(status.st_dev)
        self.inode = UInt64(status.st_ino)
    }
}

extension SQLiteError {
    /// The error of every call once `DatabaseFileWatch` found a file replaced or deleted under the pool: SQLite's own
    /// code for that (`SQLITE_READONLY_DBMOVED`), so callers answer 503.
    static func moved(_ path: String, what: String) -> SQLiteError {
        SQLiteError(extendedCode: CSQLITE_READONLY_DBMOVED,
                    message: "\(what) \(path) was replaced or deleted while the server ran: it still has the old one "
                        + "open, and what it wrote there would be lost; restart it to open the file at that path now")
    }

    /// Whether this is `moved(_:what:)`'s error.
    public var isMoved: Bool { extendedCode == CSQLITE_READONLY_DBMOVED }
}
