@testable import FakeApple
import Foundation
import Glibc
import HTTPCore
import Storage
import TestSupport
import Testing
import Web
@testable import App
@testable import CryptoCore

/// `siwa backup DEST` beside a running `siwa serve`, and the README's restore: start the server on the copy.
@Suite(.timeLimit(.minutes(3)), .sqliteOnly)
struct BackupCommandTests {
    /// Signs in a new user on the server at `baseURL`; the bearer value.
    private static func signIn(_ client: HTTPClient, _ baseURL: String, _ keys: FakeAppleKeys, subject: String)
        async throws -> String?
    {
        let token = try keys.mintIdentityToken(IdentityTokenRequest(subject: subject, audience: SpawnedApp.clientID,
                                                                    email: "\(subject)@example.com"))
        let response = try await client.send(HTTPClientRequest(
            method: .POST, url: baseURL + "/api/users/siwa", headers: ["Content-Type": "application/json"],
            body: Array(try JSONSerialization.data(withJSONObject: ["token": token]))
        ))
        guard response.status == .ok else { return nil }
        return (try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?["value"] as? String
    }

    @Test func aCopyTakenUnderSignInLoadServesEveryUserCommittedBeforeIt() async throws {
        try await SpawnedApp.with { app in
            try await app.launch()
            let (client, baseURL, keys) = (app.client, app.baseURL, app.keys)
            var committed: [String] = []
            for index in 0..<40 {
                committed.append(try #require(try await Self.signIn(client, baseURL, keys, subject: "001.before\(index)")))
            }
            let load = Task {
                await withTaskGroup(of: Int.self) { group in
                    for worker in 0..<4 {
                        group.addTask {
                            var count = 0
                            while !Task.isCancelled {
                                if (try? await Self.signIn(client, baseURL, keys, subject: "001.load\(worker).\(count)")) != nil {
                                    count += 1
                                }
                            }
                            return count
                        }
                    }
                    return await group.reduce(0, +)
                }
            }
            try await Task.sleep(for: .milliseconds(200))
            let copy = app.directory.appendingPathComponent("backup.sqlite").path
            let backup = try await SiwaProcess.run(["backup", copy], environment: app.environment(), directory: app.directory)
            load.cancel()
            let signedInMeanwhile = await load.value
            #expect(backup.status == 0, "\(backup.output)")
            #expect(signedInMeanwhile > 0, "the server kept serving sign-ins while the backup ran")
            let summary = try #require(backup.lines.first)
            #expect(summary.hasPrefix("Backed up \(app.databasePath) to \(copy): "))
            #expect(summary.hasSuffix("PRAGMA integrity_check ok."))
            let words = summary.split(separator: " ")
            let usersIndex = try #require(words.firstIndex(of: "users,"))
            #expect(Int(words[usersIndex - 1]) ?? 0 >= committed.count)
            let keyLine = try #require(backup.lines.first { $0.hasPrefix("The refresh-token key is ") })
            #expect(keyLine.contains("\(app.databasePath).refresh-token-key"))
            #expect(keyLine.contains("back it up apart from database backups"))
            #expect(!FileManager.default.fileExists(atPath: copy + ".refresh-token-key"))
            let restoreLine = try #require(backup.lines.first { $0.hasPrefix("To restore: ") })
            #expect(restoreLine.contains("delete \(app.databasePath)-wal and \(app.databasePath)-shm"))
            #expect(restoreLine.contains("copy the refresh-token key to \(copy).refresh-token-key"))

            #expect(await app.server?.terminate() == 0)
            try await app.launch(["DATABASE_PATH": copy])
            for bearer in committed {
                #expect(try await app.me(bearer: bearer).status == .ok)
            }
        }
    }

    /// The backup the README asks for before an upgrade is taken with the new build installed, its migration not
    /// yet run: the copy is made and says which schema version it holds. Found by a review: it was refused, "run
    /// `siwa migrate` first", the opposite of the README's advice.
    @Test func aDatabaseAwaitingThisBuildsMigrationIsBackedUp() async throws {
        let latest = try #require(AppMigrations.migrator.migrations.last?.version)
        let database = try await TemporaryDatabase(migratedTo: latest - 1)
        await database.pool.close()
        defer { try? FileManager.default.removeItem(at: database.directory) }
        let environment = try OperatorEnvironment(environment: Environment(["DATABASE_PATH": database.path]))
        let copy = database.directory.appendingPathComponent("before-upgrade.sqlite").path
        let lines = try BackupOperation.run(environment, destination: copy)
        #expect(lines.first?.hasPrefix("Backed up ") == true, "\(lines)")
        #expect(lines.first?.contains("Its schema is at version \(latest - 1), not this build's \(latest)") == true)
        let status = try AppMigrations.migrator.status(try Database(path: copy, readOnly: true))
        #expect(status.pending == [latest])
    }

    @Test func refusesBadInputWithOneLineAndWritesNothing() async throws {
        try await SpawnedApp.with { app in
            let migrate = try await SiwaProcess.run(["migrate"], environment: app.environment(), directory: app.directory)
            #expect(migrate.status == 0, "\(migrate.output)")
            let existing = app.directory.appendingPathComponent("existing.sqlite").path
            try Data("keep me".utf8).write(to: URL(fileURLWithPath: existing))
            let fresh = app.directory.appendingPathComponent("fresh.sqlite").path
            let missingDatabase = app.directory.appendingPathComponent("db/none.sqlite").path
            // A log left beside a name by a database that had it: the copy's first open would apply it. Found by an audit.
            let reused = app.directory.appendingPathComponent("reused.sqlite").path
            try Data("an old database's log".utf8).write(to: URL(fileURLWithPath: reused + "-wal"))
            let cases: [(String, [String: String], String)] = [
                (existing, [:], "siwa: \(existing) already exists; a backup never overwrites a file"),
                (app.directory.appendingPathComponent("no/such/folder.sqlite").path, [:], "siwa: cannot create "),
                (app.directory.path, [:], "siwa: \(app.directory.path) is a folder; give the new file's path, e.g. "
                    + "\(app.directory.path)/siwa-backup.sqlite"),
                // Found by a review: "e.g. .//siwa-backup.sqlite".
                (app.directory.path + "/", [:], "siwa: \(app.directory.path)/ is a folder; give the new file's path, "
                    + "e.g. \(app.directory.path)/siwa-backup.sqlite"),
                (reused, [:], "siwa: \(reused)-wal exists, left by a database of that name: SQLite would apply it"),
                // Another database's log file: SQLite would delete the copy. Found by a review.
                (app.databasePath + "-wal", [:], "siwa: \(app.databasePath)-wal is where SQLite keeps "),
                (fresh, ["DATABASE_URL": "postgres://siwa:secret@db.example.com/siwa"],
                 "siwa: DATABASE_URL names PostgreSQL: back it up with pg_dump"),
                // Whatever else the configuration lacks, PostgreSQL's answer is pg_dump.
                (fresh, ["DATABASE_URL": "postgres://siwa:secret@db.example.com/siwa", "PORT": "abc"],
                 "siwa: DATABASE_URL names PostgreSQL: back it up with pg_dump"),
                (fresh, ["DATABASE_PATH": missingDatabase], "siwa: DATABASE_PATH: no database at \(missingDatabase)"),
                // Another scheme is named as one, not taken for PostgreSQL. Found by a black-box review.
                (fresh, ["DATABASE_URL": "mysql://siwa:secret@db.example.com/siwa"],
                 "siwa: the server is not configured: Environment variable DATABASE_URL must be a postgres:// or "
                    + "postgresql:// URI libpq accepts (it is not one"),
            ]
            for (destination, extra, message) in cases {
                let result = try await SiwaProcess.run(["backup", destination], environment: app.environment(extra),
                                                 directory: app.directory)
                #expect(result.status == 1)
                #expect(result.lines.count == 1)
                #expect(result.output.hasPrefix(message), "\(result.output)")
                #expect(!result.output.contains("secret"), "the PostgreSQL password is never printed")
            }
            #expect(try String(contentsOfFile: existing, encoding: .utf8) == "keep me")
            #expect(!FileManager.default.fileExists(atPath: fresh))
            #expect(!FileManager.default.fileExists(atPath: reused))
            #expect(!FileManager.default.fileExists(atPath: missingDatabase))
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: app.directory.path)
                .filter { $0.contains("siwa-backup") }
            #expect(leftovers.isEmpty)
        }
    }

    /// SIGINT (or SIGHUP, the terminal or ssh session closed; found by a review) while the copy is made: its
    /// unfinished files, which hold users and sealed refresh tokens, are removed, and the command exits 128 + the
    /// signal's number saying so. Found by an audit.
    @Test(arguments: [(SIGINT, "SIGINT"), (SIGHUP, "SIGHUP")])
    func anInterruptedBackupLeavesNothingBehind(_ number: Int32, _ name: String) async throws {
        try await SpawnedApp.with { app in
            let migrate = try await SiwaProcess.run(["migrate"], environment: app.environment(), directory: app.directory)
            #expect(migrate.status == 0, "\(migrate.output)")
            // 128 MiB: a copy of 512 steps with a pause between each, a second at the least.
            do {
                let database = try Database(path: app.databasePath)
                try database.execute(sql: "CREATE TABLE filler (x BLOB)")
                for _ in 0..<128 { try database.execute(sql: "INSERT INTO filler VALUES (zeroblob(1048576))") }
            }
            let copy = app.directory.appendingPathComponent("interrupted.sqlite").path
            let backup = try SiwaProcess(["backup", copy], environment: app.environment(), directory: app.directory)
            let unfinished = copy + ".siwa-backup-\(backup.pid)"
            // Watched from a thread of its own: a busy suite can hold the cooperative pool for longer than the copy
            // takes, and the copy must still be running when the signal lands.
            let sent = await Self.signal(number, to: backup.process, onceExists: unfinished)
            #expect(sent, "the copy had begun")
            #expect(await backup.exited(within: .seconds(30)) == 128 + number, "\(backup.output)")
            #expect(backup.lines == ["siwa: backup interrupted by \(name); nothing was kept"])
            let left = try FileManager.default.contentsOfDirectory(atPath: app.directory.path)
                .filter { $0.hasPrefix("interrupted.sqlite") }
            #expect(left.isEmpty, "\(left)")
        }
    }

    /// Sends `signal` to `process` from a thread of its own (polling every millisecond) as soon as `path` exists;
    /// false when the process ended, or 30 seconds passed, first.
    private static func signal(_ signal: Int32, to process: ChildProcess, onceExists path: String) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread {
                let deadline = ContinuousClock.now + .seconds(30)
                while access(path, F_OK) != 0, process.isRunning, ContinuousClock.now < deadline { usleep(1000) }
                let exists = access(path, F_OK) == 0
                if exists { kill(process.pid, signal) }
                continuation.resume(returning: exists)
            }.start()
        }
    }

    @Test func saysWhereTheRefreshTokenKeyIsKeptApart() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("siwa-key-note-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = Configuration()
        configuration.databasePath = directory.appendingPathComponent("siwa.sqlite").path
        let keyPath = configuration.databasePath + ".refresh-token-key"
        #expect(BackupOperation.refreshTokenKeyNote(configuration).contains("there is none yet"))
        _ = try SecretFile.loadOrCreate(path: keyPath, count: 32)
        #expect(BackupOperation.refreshTokenKeyNote(configuration).hasPrefix(
            "The refresh-token key is not in this backup: it is in \(keyPath); back it up apart"))
        #expect(BackupOperation.restoreNote(copy: "/b/copy.sqlite", database: "/d/siwa.sqlite", configuration: configuration)
            .contains("copy the refresh-token key to /b/copy.sqlite.refresh-token-key, then start it with "
                      + "DATABASE_PATH=/b/copy.sqlite"))
        configuration.encryptionKey = Array(repeating: 7, count: 32)
        #expect(BackupOperation.refreshTokenKeyNote(configuration).contains("it is SIWA_ENCRYPTION_KEY"))
        #expect(BackupOperation.restoreNote(copy: "/b/copy.sqlite", database: "/d/siwa.sqlite", configuration: configuration)
            .contains("start it with DATABASE_PATH=/b/copy.sqlite and the same SIWA_ENCRYPTION_KEY"))
    }
}
