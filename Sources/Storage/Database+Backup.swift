import CSQLite
import Glibc

extension Database {
    /// What `backup(to:countingRowsOf:)` made.
    package struct BackupReport: Sendable, Equatable {
        /// The copy's path.
        package var path: String
        /// The copy's size in bytes.
        package var bytes: Int
        /// The rows of the counted table in the copy.
        package var rowCount: Int
    }

    /// Why a backup was not made; nothing is left behind at the destination.
    package struct BackupError: Error, Equatable, CustomStringConvertible {
        package enum Reason: Equatable, Sendable {
            /// The destination exists; a backup never overwrites a file.
            case destinationExists
            /// A `-wal`, `-shm` or `-journal` file of this name is beside the destination, left by a database that
            /// had the name: SQLite would apply it to the copy when the copy is first opened.
            case leftoverBeside(String)
            /// The destination cannot be created (`errno`'s text): a missing folder, no permission.
            case cannotCreate(String)
            /// `PRAGMA integrity_check` found this in the copy.
            case integrityCheckFailed(String)
        }

        package var reason: Reason
        package var path: String

        package var description: String {
            switch reason {
            case .destinationExists: "\(path) already exists; a backup never overwrites a file (choose a new name)"
            case .leftoverBeside(let file):
                "\(file) exists, left by a database of that name: SQLite would apply it to the copy when it is first "
                    + "opened; move it away or choose a new name"
            case .cannotCreate(let cause): "cannot create \(path): \(cause)"
            case .integrityCheckFailed(let problem): "the copy failed PRAGMA integrity_check (\(problem)); nothing was kept"
            }
        }
    }

    /// The default number of pages copied per step of a backup (256 KiB with 1 KiB pages).
    package static let backupPagesPerStep: Int32 = 256
    /// The default pause between two steps of a backup.
    package static let backupPause: Duration = .milliseconds(2)

    /// Copies this database, as one consistent snapshot, to a new file at `destinationPath`.
    ///
    /// The copy is written to a temporary file beside the destination (created exclusively), checked with
    /// `PRAGMA integrity_check`, synced, and only then linked into place: `link(2)` fails when the destination
    /// exists, so a file that appeared meanwhile is never overwritten. Writers on other connections are not
    /// blocked (WAL mode); see `OnlineBackup`.
    /// - Parameters:
    ///   - destinationPath: where the copy goes; must not exist.
    ///   - table: a table whose rows are counted in the copy, for the report.
    ///   - pagesPerStep: pages copied per step.
    ///   - pause: the sleep between steps.
    /// - Throws: `BackupError`, or `SQLiteError` when SQLite fails.
    package func backup(to destinationPath: String, countingRowsOf table: String,
                       pagesPerStep: Int32 = backupPagesPerStep, pause: Duration = backupPause) throws -> BackupReport {
        var status = stat()
        if lstat(destinationPath, &status) == 0 { throw BackupError(reason: .destinationExists, path: destinationPath) }
        for suffix in Self.companionSuffixes where lstat(destinationPath + suffix, &status) == 0 {
            throw BackupError(reason: .leftoverBeside(destinationPath + suffix), path: destinationPath)
        }
        let temporaryPath = Self.backupTemporaryPath(for: destinationPath)
        let descriptor = open(temporaryPath, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let cause = String(cString: strerror(errno))
            throw BackupError(reason: errno == EEXIST ? .cannotCreate("a backup to it is already running") : .cannotCreate(cause),
                              path: destinationPath)
        }
        Glibc.close(descriptor)
        defer { for path in Self.backupTemporaryFiles(for: destinationPath) { unlink(path) } }
        let rowCount = try transaction(.deferred) { () throws -> Int in
            _ = try fetchOne(sql: "SELECT count(*) FROM sqlite_schema") { row -> Int in try row[0] }
            let backup = try OnlineBackup(source: self, destinationPath: temporaryPath)
            try backup.copy(pagesPerStep: pagesPerStep, pause: pause)
            if let problem = try backup.integrityProblem() {
                throw BackupError(reason: .integrityCheckFailed(problem), path: destinationPath)
            }
            return try backup.fetchFirstColumn(sql: "SELECT count(*) FROM \"\(table)\"", as: Int.self) ?? 0
        }
        try Self.sync(path: temporaryPath)
        guard link(temporaryPath, destinationPath) == 0 else {
            let reason: BackupError.Reason = errno == EEXIST
                ? .destinationExists : .cannotCreate(String(cString: strerror(errno)))
            throw BackupError(reason: reason, path: destinationPath)
        }
        try Self.sync(path: Self.directory(of: destinationPath))
        guard stat(destinationPath, &status) == 0 else {
            throw BackupError(reason: .cannotCreate(String(cString: strerror(errno))), path: destinationPath)
        }
        return BackupReport(path: destinationPath, bytes: Int(status.st_size), rowCount: rowCount)
    }

    /// The files SQLite keeps beside a database, by the suffix of their names.
    static let companionSuffixes = ["-wal", "-shm", "-journal"]

    /// Where this process writes its copy for `destinationPath` until the copy is checked.
    static func backupTemporaryPath(for destinationPath: String) -> String {
        destinationPath + ".siwa-backup-\(getpid())"
    }

    /// Every file this process's backup to `destinationPath` may have made before the copy is in place: what an
    /// interrupted backup removes (`siwa backup` on SIGINT or SIGTERM).
    package static func backupTemporaryFiles(for destinationPath: String) -> [String] {
        let temporaryPath = backupTemporaryPath(for: destinationPath)
        return [temporaryPath] + companionSuffixes.map { temporaryPath + $0 }
    }

    /// `fsync(2)` of a file or folder, so the copy and its name survive a crash.
    private static func sync(path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0, fsync(descriptor) == 0 else {
            let cause = String(cString: strerror(errno))
            if descriptor >= 0 { Glibc.close(descriptor) }
            throw BackupError(reason: .cannotCreate("fsync: \(cause)"), path: path)
        }
        Glibc.close(descriptor)
    }

    /// The folder of `path`: `.` for a bare file name, `/` for a file at the root.
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
