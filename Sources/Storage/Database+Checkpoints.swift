import CSQLite

/// Counts the pages in the write-ahead log after each commit, as SQLite reports them to the WAL hook.
final class WALMonitor {
    var pages = 0
    /// `pages` when the last checkpoint beside the writer was started.
    var pagesAtLastCheckpoint = 0
}

extension Database {
    /// Replaces SQLite's automatic checkpoint (run by the committing connection, with an `fsync`) by a count of
    /// WAL pages in `walPageCount`, so the caller can checkpoint on another connection instead
    /// (https://sqlite.org/c3ref/wal_hook.html).
    func trackWALInsteadOfCheckpointing() {
        let context = Unmanaged.passUnretained(walMonitor).toOpaque()  // `walMonitor` lives as long as `self`
        sqlite3_wal_hook(handle, { context, _, _, pages in
            if let context { Unmanaged<WALMonitor>.fromOpaque(context).takeUnretainedValue().pages = Int(pages) }
            return SQLITE_OK
        }, context)
    }

    /// The pages in the WAL after the last commit on this connection, once `trackWALInsteadOfCheckpointing` ran.
    var walPageCount: Int { walMonitor.pages }

    /// Copies committed WAL pages into the database file without waiting for readers or writers
    /// (`SQLITE_CHECKPOINT_PASSIVE`).
    func checkpoint() throws {
        let code = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: handle, sql: nil) }
    }

    /// Copies every WAL page into the database file, waiting for readers and writers up to the busy timeout, and
    /// truncates the WAL to zero bytes (`SQLITE_CHECKPOINT_TRUNCATE`): what a clean shutdown leaves.
    func checkpointTruncating() throws {
        let code = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: handle, sql: nil) }
    }

    /// Flushes the database file's written pages to disk: the `xSync` of SQLite's own handle for the file
    /// (`fdatasync` on Linux), outside any transaction. Does nothing before the connection has opened the file.
    ///
    /// A checkpoint that ends before the last frame of a growing WAL does not sync the database file (the WAL
    /// still holds those pages), so the one that finally reaches the end has to flush everything backfilled
    /// since; syncing after each checkpoint keeps that last one, which the writer waits for, short.
    func syncDatabaseFile() throws {
        var file: UnsafeMutablePointer<sqlite3_file>?
        let found = sqlite3_file_control(handle, "main", SQLITE_FCNTL_FILE_POINTER, &file)
        guard found == SQLITE_OK else { throw SQLiteError(code: found, connection: handle, sql: nil) }
        guard let file, let sync = file.pointee.pMethods?.pointee.xSync else { return }
        let code = sync(file, SQLITE_SYNC_NORMAL)
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: handle, sql: nil) }
    }
}
