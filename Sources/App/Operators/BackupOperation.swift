import Foundation
import Storage
import Web

/// `siwa backup DEST`: a consistent copy of the SQLite database, taken while the server runs and serves, checked
/// with `PRAGMA integrity_check` before it is reported. Restoring is starting the server with the copy as
/// `DATABASE_PATH` and its refresh-token key beside it (README, "Backup and restore").
package enum BackupOperation {
    /// Copies the database of `environment` to `destination` and returns what to print.
    /// - Throws: `OperatorError` (one line) when nothing was copied: PostgreSQL, no database, an existing or
    ///   uncreatable destination, a failed check.
    package static func run(_ environment: OperatorEnvironment, destination: String) throws -> [String] {
        if environment.configuration.databaseURL != nil { throw postgresRefusal }
        guard !destination.isEmpty else { throw OperatorError("DEST must be a file path") }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: destination, isDirectory: &isDirectory), isDirectory.boolValue {
            let example = (destination.hasSuffix("/") ? destination : destination + "/") + "siwa-backup.sqlite"
            throw OperatorError("\(destination) is a folder; give the new file's path, e.g. \(example)")
        }
        // Any version of the schema: the backup the README asks for before an upgrade is taken once the new build
        // is installed, before its migration runs. Found by a review: it was refused, "run `siwa migrate` first".
        for suffix in ["-wal", "-shm", "-journal"] where destination.hasSuffix(suffix) {
            let owner = String(destination.dropLast(suffix.count))
            if FileManager.default.fileExists(atPath: owner) {
                // SQLite would take the copy for that database's own file, and delete it. Found by a review.
                throw OperatorError("\(destination) is where SQLite keeps \(owner)'s \(suffix.dropFirst()) file; "
                    + "choose another name")
            }
        }
        let database = try environment.openReadOnly(anySchemaVersion: true)
        if URL(fileURLWithPath: destination).standardized.path
            == URL(fileURLWithPath: database.path).standardized.path {
            throw OperatorError("\(destination) is the database itself; choose a new file")
        }
        let report: Database.BackupReport
        do {
            report = try database.backup(to: destination, countingRowsOf: "users")
        } catch let error as Database.BackupError {
            throw OperatorError("\(error)")
        } catch let error as SQLiteError {
            throw OperatorError("SQLite failed: \(error.message); nothing was kept")
        }
        let latest = AppMigrations.migrator.migrations.last?.version ?? 0
        let version = (try? AppMigrations.migrator.status(database)).flatMap { status in
            status.pending.isEmpty && status.unknown.isEmpty ? nil : status.applied.max()
        }
        return [
            "Backed up \(database.path) to \(report.path): \(report.bytes) bytes, \(report.rowCount) users, "
                + "PRAGMA integrity_check ok."
                + (version.map { " Its schema is at version \($0), not this build's \(latest): restore it with the "
                    + "build that wrote it." } ?? ""),
            refreshTokenKeyNote(environment.configuration),
            restoreNote(copy: report.path, database: database.path, configuration: environment.configuration),
        ]
    }

    /// The refusal on PostgreSQL, given as soon as a `postgres://` or `postgresql://` `DATABASE_URL` is seen in
    /// `environment`, before the rest of the configuration is checked: whatever else is missing, the answer is
    /// `pg_dump`. Another scheme is left to the configuration's check, which names it.
    package static func refusePostgres(_ environment: Environment) throws {
        guard let url = environment.get("DATABASE_URL")?.lowercased() else { return }
        if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") { throw postgresRefusal }
    }

    /// The files of a copy to `destination` not yet in place, which an interrupted backup removes.
    package static func unfinishedFiles(destination: String) -> [String] {
        Database.backupTemporaryFiles(for: destination)
    }

    static let postgresRefusal = OperatorError("DATABASE_URL names PostgreSQL: back it up with pg_dump (e.g. `pg_dump "
        + "--format=custom --file=siwa.dump \"$DATABASE_URL\"`); siwa backup copies SQLite only")

    /// How to restore from the copy: with its refresh-token key (the server refuses a database holding sealed
    /// tokens without the key that opens them, `RefreshTokenKeyCheck`), and, copied over the database, without the
    /// `-wal` and `-shm` files a crash leaves (a clean stop removes them): SQLite would apply the old database's WAL
    /// to the copy and corrupt it.
    static func restoreNote(copy: String, database: String, configuration: Configuration) -> String {
        let overTheDatabase = "delete \(database)-wal and \(database)-shm if they exist, which a crash leaves, then "
            + "copy the file to \(database)"
        if configuration.encryptionKey != nil {
            return "To restore: stop the server, then start it with DATABASE_PATH=\(copy) and the same "
                + "SIWA_ENCRYPTION_KEY (or, while no server runs, \(overTheDatabase))."
        }
        let key = AppleTokenLifecycle.keyFilePath(databasePath: database)
        return "To restore: stop the server, copy the refresh-token key to "
            + "\(AppleTokenLifecycle.keyFilePath(databasePath: copy)), then start it with DATABASE_PATH=\(copy) (or, "
            + "while no server runs, \(overTheDatabase) and keep the key of its refresh tokens at \(key))."
    }

    /// Where the key of Apple's refresh tokens lives: never in the copy, so it must be backed up apart.
    static func refreshTokenKeyNote(_ configuration: Configuration) -> String {
        if configuration.encryptionKey != nil {
            return "The refresh-token key is not in this backup: it is SIWA_ENCRYPTION_KEY in the environment or .env; "
                + "keep it apart from database backups (without it, the stored Apple refresh tokens cannot be revoked)."
        }
        let path = AppleTokenLifecycle.keyFilePath(databasePath: configuration.databasePath)
        guard FileManager.default.fileExists(atPath: path) else {
            return "The refresh-token key is never in a backup: there is none yet; once the Apple key is configured the "
                + "server makes it in \(path) (or set SIWA_ENCRYPTION_KEY): back it up apart from database backups."
        }
        return "The refresh-token key is not in this backup: it is in \(path); back it up apart from database backups "
            + "(without it, the stored Apple refresh tokens cannot be revoked; with it, a copy of the database yields them)."
    }
}
