import Foundation
import Glibc
import Synchronization
import Testing

/// A throwaway PostgreSQL server for tests: `initdb` into a temporary folder, listening on 127.0.0.1 (a free port)
/// and a socket in that folder only, run as the `postgres` user when the tests run as root (PostgreSQL refuses
/// root), stopped and deleted by `stop()`. Debian's `postgresql` package provides the binaries
/// (`Scripts/setup postgresql` installs it).
package final class PostgresCluster: Sendable {
    /// The folder holding the data directory, the socket and the server's log.
    package let directory: String
    package let port: Int
    private let binaries: String
    private let runAs: [String]
    /// The server's `-c` settings for TLS, empty when it serves plain TCP only.
    private let tlsOptions: String
    private let existing = Mutex<Set<String>>([])

    /// Where the server's binaries are, or nil when PostgreSQL is not installed.
    package static var binaryDirectory: String? {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        return versions.sorted { (Int($0) ?? 0) < (Int($1) ?? 0) }.last
            .map { "/usr/lib/postgresql/\($0)/bin" }
            .flatMap { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") ? $0 : nil }
    }

    /// Whether a cluster can be started here.
    package static var isAvailable: Bool { binaryDirectory != nil }

    /// Creates and starts a cluster; the `postgres` database accepts user `postgres` without a password, from
    /// loopback only. With `tls`, the server also accepts TLS connections with that certificate and key (libpq's
    /// default `sslmode=prefer` then uses TLS).
    package init(tls: SelfSignedCertificate? = nil) throws {
        guard let binaries = Self.binaryDirectory else {
            throw ChildProcess.Failure(description: "PostgreSQL is not installed (Scripts/setup postgresql)")
        }
        self.binaries = binaries
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("siwa-pg-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // Run as root, the files PostgreSQL reads go to the postgres user it runs as.
        var owner: (uid: uid_t, gid: gid_t)?
        if getuid() == 0 {
            guard let user = getpwnam("postgres") else {
                throw ChildProcess.Failure(description: "running as root and there is no postgres user to run PostgreSQL as")
            }
            owner = (user.pointee.pw_uid, user.pointee.pw_gid)
            runAs = ["/usr/sbin/runuser", "-u", "postgres", "--"]
        } else {
            runAs = []
        }
        if let owner { chown(directory, owner.uid, owner.gid) }
        port = try LoopbackPort.free()
        if let tls {
            // PostgreSQL wants its key file owned by the user it runs as, readable by nobody else.
            let certificate = directory + "/server.crt", key = directory + "/server.key"
            try FileManager.default.copyItem(atPath: tls.certificatePath, toPath: certificate)
            try FileManager.default.copyItem(atPath: tls.privateKeyPath, toPath: key)
            chmod(key, 0o600)
            if let owner {
                chown(certificate, owner.uid, owner.gid)
                chown(key, owner.uid, owner.gid)
            }
            tlsOptions = " -c ssl=on -c ssl_cert_file=\(certificate) -c ssl_key_file=\(key)"
        } else {
            tlsOptions = ""
        }
        try copyTemplate(owner: owner)
        try start()
    }

    /// Copies the process's template data directory (`Template`) to this cluster's `data`, ownership and modes kept.
    private func copyTemplate(owner: (uid: uid_t, gid: gid_t)?) throws {
        let template = try Template.shared(binaries: binaries, runAs: runAs, owner: owner)
        try Self.run(["/bin/cp", "-a", template, directory + "/data"], named: "cp -a \(template)",
                     log: directory + "/commands.log")
    }

    /// One `initdb` per test process, copied for each cluster: `initdb` costs about 0.6 s of CPU and a copy of its
    /// 39 MB about 0.03 s. The suite starts a dozen clusters, most of them in its first seconds, when every test
    /// starts at once on two cores; those seconds of `initdb` starved the test process, and tests waiting on a
    /// 5-second deadline failed (the stall that every CI run showed early on). Removed as the process exits.
    private enum Template {
        /// The template's data directory once made, or why it could not be.
        private static let made = Mutex<Result<String, any Error>?>(nil)

        static func shared(binaries: String, runAs: [String], owner: (uid: uid_t, gid: gid_t)?) throws -> String {
            try made.withLock { made in
                let result = made ?? Result { try make(binaries: binaries, runAs: runAs, owner: owner) }
                made = result
                return try result.get()
            }
        }

        private static func make(binaries: String, runAs: [String], owner: (uid: uid_t, gid: gid_t)?) throws -> String {
            let folder = FileManager.default.temporaryDirectory
                .appendingPathComponent("siwa-pg-template-\(UUID().uuidString.prefix(8))").path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            if let owner { chown(folder, owner.uid, owner.gid) }
            atexit { Template.remove() }
            try PostgresCluster.run(runAs + [binaries + "/initdb", "-D", folder + "/data", "-U", "postgres", "-A",
                                             "trust", "-E", "UTF8", "--no-sync", "--no-instructions"],
                                    named: "initdb", log: folder + "/initdb.log")
            return folder + "/data"
        }

        /// Deletes the template's folder (the parent of its data directory).
        private static func remove() {
            guard let data = made.withLock({ try? $0?.get() }) else { return }
            try? FileManager.default.removeItem(atPath: (data as NSString).deletingLastPathComponent)
        }
    }

    /// A streaming standby of `primary` (`pg_basebackup -R`, which writes
    /// `standby.signal` and `primary_conninfo`), in a folder of its own on a free port, started and replaying.
    package init(standbyOf primary: PostgresCluster) throws {
        binaries = primary.binaries
        runAs = primary.runAs
        tlsOptions = ""
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("siwa-pg-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if getuid() == 0, let user = getpwnam("postgres") { chown(directory, user.pointee.pw_uid, user.pointee.pw_gid) }
        port = try LoopbackPort.free()
        try run("pg_basebackup", ["-h", "127.0.0.1", "-p", "\(primary.port)", "-U", "postgres", "-D", directory + "/data",
                                  "-R", "-X", "stream", "--checkpoint=fast", "--no-sync"])
        try start()
    }

    /// Promotes a standby to primary (`pg_ctl promote`); returns once it takes writes.
    package func promote() throws {
        try run("pg_ctl", ["-D", directory + "/data", "-w", "promote"])
    }

    deinit { stop() }

    /// A `postgres://` URI for `database` on this cluster, over TCP on 127.0.0.1.
    package func url(database: String = "postgres") -> String {
        "postgres://postgres@127.0.0.1:\(port)/\(database)"
    }

    /// Starts the server (again); returns once it accepts connections.
    package func start() throws {
        let options = "-c listen_addresses=127.0.0.1 -p \(port) -k \(directory) -c fsync=off -c full_page_writes=off"
            + " -c max_connections=200" + tlsOptions
        try run("pg_ctl", ["-D", directory + "/data", "-l", directory + "/server.log", "-o", options, "-w", "-t", "60",
                           "start"])
    }

    /// Stops the server at once (`immediate`), as a crash or an outage would; `start()` brings it back.
    package func kill() throws {
        try run("pg_ctl", ["-D", directory + "/data", "-m", "immediate", "-w", "stop"])
    }

    /// Stops the server if it runs and deletes the folder.
    package func stop() {
        _ = try? run("pg_ctl", ["-D", directory + "/data", "-m", "immediate", "-w", "stop"], failIfNonZero: false)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Creates a database of its own for one test and returns its URI.
    package func createDatabase() throws -> String {
        try database(named: "t_" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: ""))
    }

    /// The URI of the database for `key` (a test's folder, so that a server restarted on the same folder finds its
    /// data again), created the first time.
    package func database(for key: String) throws -> String {
        let name = "t_" + String(key.lowercased().filter { $0.isLetter || $0.isNumber }.suffix(48))
        let created = existing.withLock { $0.insert(name).inserted }
        return created ? try database(named: name) : url(database: name)
    }

    private func database(named name: String) throws -> String {
        try run("createdb", ["-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", name])
        return url(database: name)
    }

    /// Runs `sql` with psql as `postgres` on `database`; returns what it printed, unaligned, rows only.
    package func query(_ sql: String, database: String = "postgres") throws -> String {
        let output = directory + "/query-\(UUID().uuidString.prefix(8)).out"
        defer { try? FileManager.default.removeItem(atPath: output) }
        try run("psql", ["-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-d", database, "-Atq",
                         "-o", output, "-c", sql])
        return ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func run(_ tool: String, _ arguments: [String], failIfNonZero: Bool = true) throws {
        try Self.run(runAs + [binaries + "/" + tool] + arguments, named: tool, log: directory + "/commands.log",
                     failIfNonZero: failIfNonZero)
    }

    /// Runs `command` to its end, its output in `log`; when it fails (and `failIfNonZero`), throws naming it `name`,
    /// with the end of the log.
    private static func run(_ command: [String], named name: String, log: String, failIfNonZero: Bool = true)
        throws
    {
        let child = try ChildProcess(command[0], arguments: Array(command.dropFirst()), output: .file(log), error: .output)
        child.waitUntilExit()
        if failIfNonZero, child.terminationStatus != 0 {
            let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw ChildProcess.Failure(
                description: "\(name) failed (\(child.terminationStatus)): \(output.suffix(2000))")
        }
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs a test only where a PostgreSQL server can be started; under CI it always runs, and a missing
    /// installation fails it.
    package static var postgres: Self {
        .enabled(if: PostgresCluster.isAvailable || !(ProcessInfo.processInfo.environment["CI"] ?? "").isEmpty,
                 "PostgreSQL is not installed (Scripts/setup postgresql)")
    }
}

extension PostgresCluster {
    /// The engine the application tests run on: PostgreSQL when `SIWA_TEST_DATABASE=postgres` (`Scripts/test` runs
    /// the application suite once on each engine), SQLite otherwise.
    package static var testsUsePostgres: Bool {
        ProcessInfo.processInfo.environment["SIWA_TEST_DATABASE"] == "postgres"
    }

    /// One cluster for the whole test process, started on first use and stopped as the process exits; each test
    /// takes a database of its own in it (`createDatabase`).
    package static let shared: PostgresCluster = {
        do {
            let cluster = try PostgresCluster()
            atexit { PostgresCluster.shared.stop() }
            return cluster
        } catch {
            fatalError("SIWA_TEST_DATABASE=postgres, but no PostgreSQL cluster could be started: \(error)")
        }
    }()
}

extension Trait where Self == ConditionTrait {
    /// For a test of the SQLite file itself (faults of the file, backups, the writer's durability): skipped when the
    /// application tests run on PostgreSQL.
    package static var sqliteOnly: Self {
        .disabled(if: PostgresCluster.testsUsePostgres, "tests the SQLite file; this run uses PostgreSQL")
    }

    /// For a test of PostgreSQL's concurrency (sessions that hold locks, transactions that interleave): skipped when
    /// the application tests run on SQLite, which runs one write at a time.
    package static var postgresOnly: Self {
        .enabled(if: PostgresCluster.testsUsePostgres, "tests PostgreSQL's transactions; this run uses SQLite")
    }
}

extension PostgresCluster {
    /// A cluster of the test's own, for a test that stops or kills the server, or one that serves TLS.
    package static func started(tls: SelfSignedCertificate? = nil) async throws -> PostgresCluster {
        try await offThePool { try PostgresCluster(tls: tls) }
    }

    /// The process-wide `shared` cluster, started off the pool the first time.
    package static func sharedCluster() async throws -> PostgresCluster {
        try await offThePool { PostgresCluster.shared }
    }

    /// The database for `key` (`database(for:)`) in the shared cluster, off the pool.
    package static func sharedDatabase(for key: String) async throws -> String {
        try await offThePool { try PostgresCluster.shared.database(for: key) }
    }

    /// A database of the test's own (`createDatabase`), off the pool.
    package func newDatabase() async throws -> String {
        try await offThePool { [self] in try createDatabase() }
    }

    /// Kills the server (`kill`), off the pool.
    package func killServer() async throws {
        try await offThePool { [self] in try kill() }
    }

    /// A streaming standby of this cluster (`init(standbyOf:)`), off the pool.
    package func startStandby() async throws -> PostgresCluster {
        try await offThePool { [self] in try PostgresCluster(standbyOf: self) }
    }

    /// Promotes this standby (`promote`), off the pool.
    package func promoteServer() async throws {
        try await offThePool { [self] in try promote() }
    }

    /// A new primary and a streaming standby of it in synchronous replication (`synchronous_standby_names = '*'`,
    /// so a commit returns once the standby has it), off the pool; returns once the standby reports `sync`.
    package static func synchronousPair() async throws -> (primary: PostgresCluster, standby: PostgresCluster) {
        let primary = try await started()
        var standby: PostgresCluster?
        do {
            let started = try await primary.startStandby()
            standby = started
            try await offThePool {
                _ = try primary.query("ALTER SYSTEM SET synchronous_standby_names = '*'")
                _ = try primary.query("SELECT pg_reload_conf()")
                var tries = 0
                while try primary.query("SELECT sync_state FROM pg_stat_replication") != "sync" {
                    tries += 1
                    guard tries < 100 else { throw ChildProcess.Failure(description: "the standby never became sync") }
                    usleep(100_000)
                }
            }
            return (primary, started)
        } catch {
            standby?.stop()
            primary.stop()
            throw error
        }
    }

    /// Returns once `standby` has replayed everything this primary has written so far, off the pool. Synchronous
    /// replication acknowledges a commit once the standby has flushed it, not replayed it: a pool that tries the
    /// standby before that (the primary gone, the promotion under way) may not find a database created just before.
    package func waitUntilReplayed(by standby: PostgresCluster) async throws {
        try await offThePool { [self] in
            let written = try query("SELECT pg_current_wal_lsn()")
            var tries = 0
            while try standby.query("SELECT pg_last_wal_replay_lsn() >= '\(written)'::pg_lsn") != "t" {
                tries += 1
                guard tries < 300 else {
                    throw ChildProcess.Failure(description: "the standby never replayed \(written)")
                }
                usleep(100_000)
            }
        }
    }

    /// Starts the server again (`start`), off the pool.
    package func restartServer() async throws {
        try await offThePool { [self] in try start() }
    }
}

/// psql on one connection that stays open, fed statements one at a time: a transaction a test holds open across its
/// steps (a lock another session then waits on).
package final class PsqlSession {
    private let process: ChildProcess

    /// Connects to `url` (a `postgres://` URI); fails when PostgreSQL is not installed.
    package init(url: String) throws {
        guard let binaries = PostgresCluster.binaryDirectory else {
            throw ChildProcess.Failure(description: "PostgreSQL is not installed")
        }
        process = try ChildProcess(binaries + "/psql", arguments: ["-Atq", "-v", "ON_ERROR_STOP=1", "-d", url],
                                   input: .pipe, output: .null, error: .null)
    }

    /// Sends `sql`, which psql runs when it reads it; no answer is awaited.
    package func send(_ sql: String) {
        process.input?.write(Data((sql + "\n").utf8))
    }

    /// Ends the session: psql reads the end of its input and exits (an open transaction rolls back).
    package func close() {
        try? process.input?.close()
        process.waitUntilExit()
    }

    deinit {
        if process.isRunning { close() }
    }
}
