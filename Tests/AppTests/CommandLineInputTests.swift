import Glibc
import FakeApple
import Foundation
import TestSupport
import Storage
import Testing

/// Bad command-line values are one clear line and a non-zero exit before anything starts. Found by an audit: a port
/// past 65535 wrapped around 65,536 and the server listened on what was left (`--port 103616`: port 38080), and
/// `siwa mint --first` near `Int.max` crashed on an overflow.
@Suite(.timeLimit(.minutes(2)))
struct CommandLineInputTests {
    static let webClientUsage = "--web-client must be SERVICES_ID=URL (no #fragment), such as "
        + "com.example.web=https://example.com/login/siwa/callback"

    @Test(arguments: [
        (["serve", "--port", "103616"], "--port must be a port in 0...65535, not 103616"),
        (["serve", "--port=-1"], "--port must be a port in 0...65535, not -1"),
        (["dev", "--port", "65536"], "--port must be a port in 0...65535, not 65536"),
        (["dev", "--apple-port", "70000"], "--apple-port must be a port in 0...65535, not 70000"),
        (["fake-apple", "--port", "70000"], "--port must be a port in 0...65535, not 70000"),
        (["fake-apple", "--web-client", "com.example.web"],
         CommandLineInputTests.webClientUsage),
        (["fake-apple", "--web-client", "com.example.web=https://example.com/cb#x"],
         CommandLineInputTests.webClientUsage),
        (["dev", "--port", "18999", "--apple-port", "18999"], "--port and --apple-port must differ, not both 18999"),
        (["dev", "--database", ""], "--database must name a SQLite file"),
        (["mint", "--aud", "x", "--count", "2", "--first", "\(Int.max)"],
         "--first plus --count must be at most \(Int.max)"),
        (["mint", "--aud", "x", "--count", "1000001"], "--count must be at most 1000000, not 1000001"),
        (["mint", "--aud", "x", "--count", "\(Int.max)"], "--count must be at most 1000000, not \(Int.max)"),
        (["mint", "--aud", ""], "--aud must name the bundle id or Services ID the token is for"),
        // Found by a review: ignored without --count, the one token written to standard output.
        (["mint", "--aud", "x", "--output", "tokens"], "--first, --output and --web-states are for bulk mode: give --count too"),
        (["mint", "--aud", "x", "--first", "5"], "--first, --output and --web-states are for bulk mode: give --count too"),
        (["mint", "--aud", "x", "--web-states"], "--first, --output and --web-states are for bulk mode: give --count too"),
        // Found by an audit: a command that only groups others printed its help and exited 0.
        (["users"], "'users' needs one of its commands: show, export, delete"),
        (["apple"], "'apple' needs one of its commands: validate-tokens, retry-revocations, transfer"),
        (["apple", "transfer"], "'transfer' needs one of its commands: export, import, status"),
        (["users", "show"], "Missing expected argument '<user>'"),
        // Found by a review: "Unexpected argument 'migrat'. See 'siwa serve --help'", serve being the default.
        (["migrat"], "'migrat' is not a siwa command (serve, migrate, routes, doctor, backup, users, apple, dev, "
            + "fake-apple, mint)"),
    ])
    func badValuesAreRefusedBeforeAnythingStarts(_ arguments: [String], _ message: String) async throws {
        try await TestApp.withTemporaryDirectory { directory in
            let result = try await SiwaProcess.run(arguments, environment: [:], directory: directory, timeout: 30)
            #expect(result.status == 2, "a usage error: \(result.output)")
            #expect(result.lines.first?.hasPrefix("Error: \(message). See '") == true, "\(result.output)")
            #expect(result.lines.count == 1, "one line: \(result.output)")
            #expect(!result.output.contains("listening"), "nothing started: \(result.output)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "nothing written")
        }
    }

    /// One email is one user: without `--sub`, `siwa mint` names the user the stand-in gives that email, as its
    /// `/dev/app-credential` does, so the README's examples sign the same user in again. Found by an audit: each run
    /// made a new random `sub`, and the help showed one as if it were the default.
    @Test func mintsDefaultSubIsTheStandInsForTheEmail() async throws {
        try await TestApp.withTemporaryDirectory { directory in
            func sub(_ arguments: [String]) async throws -> String? {
                let result = try await SiwaProcess.run(["mint", "--aud", "x", "--key-file", "k.pem"] + arguments,
                                                       environment: [:], directory: directory, timeout: 30)
                let payload = try #require(result.lines.last?.split(separator: ".").dropFirst().first)
                var base64 = payload.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
                while base64.count % 4 != 0 { base64 += "=" }
                let claims = try JSONSerialization.jsonObject(with: try #require(Data(base64Encoded: base64)))
                return (claims as? [String: Any])?["sub"] as? String
            }
            let jane = try await sub(["--email", "jane@example.com"])
            #expect(jane == FakeAppleKeys.subject(forEmail: "jane@example.com"))
            #expect(try await sub(["--email", "jane@example.com"]) == jane)
            #expect(try await sub(["--email", "joe@example.com"]) != jane)
            #expect(try await sub(["--email", "jane@example.com", "--sub", "001.given"]) == "001.given")
            let help = try await SiwaProcess.run(["mint", "--help"], environment: [:], directory: directory, timeout: 30)
            let words = help.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(words.contains("(default: the one the stand-in gives --email, so one email is one user)"), "\(words)")
        }
    }

    /// A mint that makes the stand-in's key says so on standard error, where a shell's `$(siwa mint …)` does not
    /// take it: only a stand-in serving that key makes its tokens good. A mint with the key says nothing more.
    @Test func aMintThatMakesTheKeySaysSo() async throws {
        try await TestApp.withTemporaryDirectory { directory in
            let first = try await SiwaProcess.run(["mint", "--aud", "x"], environment: [:], directory: directory,
                                                  timeout: 30)
            #expect(first.status == 0)
            #expect(first.lines.count == 2, "\(first.output)")
            #expect(first.lines.first == "siwa mint: no stand-in key at fake-apple-key.pem, so a new one was made "
                    + "there: a server accepts these tokens only with a stand-in that serves this key (siwa dev or "
                    + "siwa fake-apple, with --key-file fake-apple-key.pem)")
            let again = try await SiwaProcess.run(["mint", "--aud", "x"], environment: [:], directory: directory,
                                                  timeout: 30)
            #expect(again.lines.count == 1 && again.lines[0].split(separator: ".").count == 3, "\(again.output)")
        }
    }

    @Test func mintsUnwritableOutputIsOneLine() async throws {
        try await TestApp.withTemporaryDirectory { directory in
            _ = try FakeAppleKeys.fixture(in: directory, named: FakeAppleKeys.defaultPath)
            let result = try await SiwaProcess.run(["mint", "--aud", "x", "--count", "2", "--output", "/nonexistent/tokens"],
                                                   environment: [:], directory: directory, timeout: 30)
            #expect(result.status == 1)
            #expect(result.lines.count == 1 && result.output.hasPrefix("siwa: --output: cannot write /nonexistent/tokens"),
                    "\(result.output)")
        }
    }

    /// Users numbered up to `Int.max` are minted, split among the workers without passing it. Found by a review:
    /// `--first 9223372036854775806 --count 1` passed the check and then trapped on an overflow.
    @Test(arguments: [(Int.max - 1, 1), (Int.max - 5, 5)])
    func mintsUsersNumberedUpToIntMax(first: Int, count: Int) async throws {
        try await TestApp.withTemporaryDirectory { directory in
            let result = try await SiwaProcess.run(["mint", "--aud", "x", "--first", "\(first)", "--count", "\(count)",
                                                    "--output", "tokens"], environment: [:], directory: directory,
                                                   timeout: 30)
            #expect(result.status == 0, "\(result.output)")
            let tokens = try String(contentsOf: directory.appendingPathComponent("tokens"), encoding: .utf8)
            #expect(tokens.split(separator: "\n").count == count)
        }
    }

    /// The tokens file is private (0600, even when it was there before) and is not written through a planted link.
    /// Found by a review: it was written with the umask's mode, through any link.
    @Test func mintsOutputIsPrivateAndNoLinkIsFollowed() async throws {
        try await TestApp.withTemporaryDirectory { directory in
            let tokens = directory.appendingPathComponent("tokens").path
            #expect(FileManager.default.createFile(atPath: tokens, contents: Data("old".utf8),
                                                   attributes: [.posixPermissions: 0o644]))
            let result = try await SiwaProcess.run(["mint", "--aud", "x", "--count", "2", "--output", "tokens"],
                                                   environment: [:], directory: directory, timeout: 30)
            #expect(result.status == 0, "\(result.output)")
            #expect(try FileManager.default.attributesOfItem(atPath: tokens)[.posixPermissions] as? Int == 0o600)
            #expect(try String(contentsOfFile: tokens, encoding: .utf8).split(separator: "\n").count == 2)

            let target = directory.appendingPathComponent("elsewhere").path
            #expect(symlink(target, directory.appendingPathComponent("linked").path) == 0)
            let linked = try await SiwaProcess.run(["mint", "--aud", "x", "--count", "2", "--output", "linked"],
                                                   environment: [:], directory: directory, timeout: 30)
            #expect(linked.status == 1, "\(linked.output)")
            #expect(!FileManager.default.fileExists(atPath: target))
        }
    }

    /// A `--key-file` that is a folder or holds no key is one line naming it, for every command that reads the
    /// stand-in's key. Found by a review: Foundation's error was printed whole, or "invalid key" named no file.
    @Test(arguments: [["mint", "--aud", "x"], ["fake-apple", "notify", "--event", "account-delete", "--sub", "s",
                                               "--aud", "x"]])
    func aKeyFileThatIsNoKeyIsNamed(_ arguments: [String]) async throws {
        try await TestApp.withTemporaryDirectory { directory in
            let notAKey = directory.appendingPathComponent("notes.txt").path
            try "hello".write(toFile: notAKey, atomically: true, encoding: .utf8)
            for (file, reason) in [(notAKey, "holds no PEM RSA private key"), (directory.path, "cannot be read as text")] {
                let result = try await SiwaProcess.run(arguments + ["--key-file", file], environment: [:],
                                                       directory: directory, timeout: 30)
                #expect(result.status != 0)
                #expect(result.lines.count == 1 && result.output.contains("key file \(file) \(reason)"),
                        "\(result.output)")
            }
        }
    }

    /// A chore whose Apple key cannot be used refuses in one line before the database is opened: nothing is
    /// migrated and no refresh-token key is made. Found by a review: it did both, then refused in three lines.
    @Test(arguments: ["validate-tokens", "retry-revocations"])
    func aChoreWithAnUnusableKeyChangesNothing(_ chore: String) async throws {
        try await TestApp.withTemporaryDirectory { directory in
            let database = directory.appendingPathComponent("siwa.sqlite").path
            #expect(FileManager.default.createFile(atPath: database, contents: Data()))
            let result = try await SiwaProcess.run(["apple", chore], environment: [
                "IOS_APPLICATION_IDENTIFIER": "com.example.app", "APPLE_TEAM_ID": "ABCDE12345",
                "APPLE_KEY_ID": "KEY1234567", "APPLE_PRIVATE_KEY_PATH": "/etc/siwa/AuthKey_TYPO.p8",
                "LOG_LEVEL": "info", "DATABASE_PATH": database,
            ], directory: directory, timeout: 30)
            #expect(result.status == 1, "\(result.output)")
            #expect(result.lines.count == 1 && result.output.contains("APPLE_PRIVATE_KEY_PATH"), "\(result.output)")
            #expect(try FileManager.default.attributesOfItem(atPath: database)[.size] as? Int == 0)
            #expect(!FileManager.default.fileExists(atPath: database + ".refresh-token-key"))
        }
    }

    /// A port taken after the start's address check but before its listen (another process listens on a socket it
    /// had bound with SO_REUSEADDR, once the database appears): the start fails naming PORT, and what it had made
    /// is closed first, so no `-wal` or `-shm` stays beside the database. Found by a review.
    @Test func aPortTakenDuringTheStartClosesTheDatabaseFirst() async throws {
        try await TestApp.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("race.sqlite").path
            let taker = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(taker) }
            var one: Int32 = 1
            setsockopt(taker, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(taker, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            #expect(bound == 0)
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(taker, $0, &length) }
            }
            let port = Int(UInt16(bigEndian: address.sin_port))
            let serve = try SiwaProcess(["serve"], environment: [
                "DATABASE_PATH": path, "PORT": "\(port)", "HOSTNAME": "127.0.0.1", "LOG_LEVEL": "error",
            ], directory: directory)
            var listening = false
            for _ in 0..<20_000 where !listening {
                if FileManager.default.fileExists(atPath: path) { listening = listen(taker, 1) == 0 }
                usleep(500)
            }
            guard listening else {
                serve.signal(SIGTERM)
                Issue.record("the server listened before this test could take its port: \(serve.output)")
                return
            }
            #expect(await serve.exited(within: .seconds(30)) == 1, "\(serve.output)")
            #expect(serve.output.contains("PORT"), "\(serve.output)")
            let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(left.contains("race.sqlite"), "the start got past its check: \(left)")
            #expect(!left.contains("race.sqlite-wal") && !left.contains("race.sqlite-shm"), "\(left)")
        }
    }

    /// A DATABASE_PATH whose folder is missing named neither the variable nor the path: `SQLite error 14: unable to
    /// open database file`.
    @Test(arguments: [["migrate"], ["serve", "--port", "0"]])
    func aDatabasePathThatCannotBeOpenedIsNamed(_ arguments: [String]) async throws {
        try await TestApp.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("missing/siwa.sqlite").path
            let result = try await SiwaProcess.run(arguments, environment: ["DATABASE_PATH": path, "LOG_LEVEL": "error"],
                                                   directory: directory, timeout: 30)
            #expect(result.status == 1, "\(result.output)")
            #expect(result.lines.last == "Error: Environment variable DATABASE_PATH must be a SQLite file that can be "
                    + "opened or created (\(path): unable to open database file)", "\(result.output)")
        }
    }

    /// Another application's SQLite file is refused before anything is written to it. Found by an audit: `siwa migrate`
    /// turned it to WAL mode, added `schema_migrations`, then failed with nine lines of SQL.
    /// Its journal mode is the other application's: a file in WAL mode gets no `-wal` or `-shm` beside it either.
    @Test(arguments: [["migrate"], ["serve", "--port", "0"]], [("CREATE TABLE users (x TEXT)", "DELETE"),
                                                               ("CREATE TABLE schema_migrations (version TEXT)", "DELETE"),
                                                               ("CREATE TABLE posts (x TEXT)", "WAL")])
    func anotherApplicationsDatabaseIsRefusedUnchanged(_ arguments: [String], other: (table: String, journal: String))
        async throws
    {
        try await TestApp.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("other.sqlite").path
            do {
                let database = try Database(path: path)
                try database.execute(sql: "PRAGMA journal_mode = \(other.journal)")
                try database.execute(sql: other.table)
            }
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let result = try await SiwaProcess.run(arguments, environment: ["DATABASE_PATH": path, "LOG_LEVEL": "error"],
                                                   directory: directory, timeout: 30)
            #expect(result.status == 1, "\(result.output)")
            #expect(result.lines == ["Error: Environment variable DATABASE_PATH must be a siwa database (\(path) holds "
                    + "another application's tables and no siwa migrations; nothing was changed)"], "\(result.output)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("other") }
                    == ["other.sqlite"])
        }
    }

    /// A new database of the suite's PostgreSQL cluster, in which `sql` ran; its URI.
    private static func postgresDatabase(holding sql: String) async throws -> String {
        let url = try await PostgresCluster.sharedCluster().newDatabase()
        let session = try PsqlSession(url: url)
        session.send(sql)
        session.close()
        return url
    }

    /// The same on PostgreSQL: a database holding another application's `schema_migrations` (Rails': `version`
    /// only) is refused in one line naming `DATABASE_URL`, and left as it was. Found by an audit: the message was
    /// the failed INSERT, or named SQLite.
    @Test(.postgres, arguments: [["migrate"], ["serve", "--port", "0"]])
    func anotherApplicationsPostgresDatabaseIsRefusedUnchanged(_ arguments: [String]) async throws {
        let url = try await Self.postgresDatabase(holding: """
            CREATE TABLE schema_migrations (version varchar PRIMARY KEY); INSERT INTO schema_migrations VALUES ('1');
            """)
        try await TestApp.withTemporaryDirectory { directory in
            let result = try await SiwaProcess.run(arguments, environment: ["DATABASE_URL": url, "LOG_LEVEL": "error"],
                                                   directory: directory, timeout: 60)
            #expect(result.status == 1, "\(result.output)")
            #expect(result.lines.count == 1, "\(result.output)")
            #expect(result.output.hasPrefix("Error: Environment variable DATABASE_URL must be a siwa database ("),
                    "\(result.output)")
            let pool = try PostgresPool(url: try PostgresURL(url), size: 1)
            let tables = try await pool.readOne(SQL(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()")) { try $0[0] as Int }
            #expect(tables == 1, "nothing was made")
        }
    }

    /// SQLite's own tables are not another application's: an empty file someone ran `ANALYZE` on holds only
    /// `sqlite_stat1`, and migrates.
    @Test func sqlitesOwnTablesAreNotAnotherApplications() async throws {
        try await TestApp.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("analyzed.sqlite").path
            do { try Database(path: path).execute(sql: "ANALYZE") }
            let result = try await SiwaProcess.run(["migrate"], environment: ["DATABASE_PATH": path, "LOG_LEVEL": "error"],
                                                   directory: directory, timeout: 30)
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.hasPrefix("Applied migrations: 1, "), "\(result.output)")
        }
    }

    /// `siwa migrate` leaves one self-contained file, as a clean stop of the server does: the schema is in it, and
    /// no `-wal` or `-shm` is left beside it that a copy of the file alone would miss. Found by an audit: the WAL
    /// often held the whole schema when the command exited.
    @Test func migrateLeavesTheSchemaInTheFileAlone() async throws {
        try await TestApp.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("siwa.sqlite").path
            for expected in ["Applied migrations: 1, ", "Database is up to date."] {
                let result = try await SiwaProcess.run(["migrate"], environment: ["DATABASE_PATH": path, "LOG_LEVEL": "error"],
                                                       directory: directory, timeout: 30)
                #expect(result.status == 0 && result.output.hasPrefix(expected), "\(result.output)")
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["siwa.sqlite"])
                let copy = directory.appendingPathComponent("copy.sqlite").path
                try FileManager.default.copyItem(atPath: path, toPath: copy)
                let tables = try Database(inspecting: copy).fetchOne(sql: "SELECT count(*) FROM sqlite_schema WHERE name = 'users'") {
                    try $0[0] as Int
                }
                #expect(tables == 1, "the copy of the file alone holds the schema")
                try FileManager.default.removeItem(atPath: copy)
            }
        }
    }

    /// What an extension put in the database (some hosts put PostGIS's `spatial_ref_sys` in every new one) is not
    /// another application's: `siwa migrate` migrates beside it.
    @Test(.postgres) func anExtensionsTablesAreNotAnotherApplications() async throws {
        let url = try await Self.postgresDatabase(holding: "CREATE EXTENSION pg_stat_statements;")
        try await TestApp.withTemporaryDirectory { directory in
            let pool = try PostgresPool(url: try PostgresURL(url), size: 1)
            let views = try await pool.readOne(SQL(
                "SELECT count(*) FROM information_schema.views WHERE table_schema = current_schema()")) { try $0[0] as Int }
            #expect(views ?? 0 > 0, "the extension made its views")
            let result = try await SiwaProcess.run(["migrate"], environment: ["DATABASE_URL": url, "LOG_LEVEL": "error"],
                                                   directory: directory, timeout: 60)
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.hasPrefix("Applied migrations: 1, "), "\(result.output)")
        }
    }

    /// TLS files OpenSSL cannot use stop the start naming their variable, before any database is made. Found by an
    /// audit: the errors named only the file, came after the database was created, and a key with a passphrase made
    /// OpenSSL ask for it on the terminal.
    @Test func tlsFilesThatCannotBeUsedAreNamedByTheirVariable() async throws {
        try await TestApp.withTemporaryDirectory { directory in
            let first = try SelfSignedCertificate.make(), second = try SelfSignedCertificate.make()
            let encrypted = directory.appendingPathComponent("encrypted.pem").path
            #expect(try ChildProcess.run("/usr/bin/env", arguments: [
                "openssl", "pkey", "-in", first.privateKeyPath, "-aes256", "-passout", "pass:secret", "-out", encrypted,
            ]) == 0)
            let cases: [(cert: String, key: String, variable: String)] = [
                ("/nonexistent/cert.pem", first.privateKeyPath, "TLS_CERT_PATH"),
                (first.privateKeyPath, first.privateKeyPath, "TLS_CERT_PATH"),
                (first.certificatePath, "/nonexistent/key.pem", "TLS_KEY_PATH"),
                (first.certificatePath, second.privateKeyPath, "TLS_KEY_PATH"),
                (first.certificatePath, encrypted, "TLS_KEY_PATH"),
            ]
            for (cert, key, variable) in cases {
                let result = try await SiwaProcess.run(["serve", "--port", "0"], environment: [
                    "TLS_CERT_PATH": cert, "TLS_KEY_PATH": key, "DATABASE_PATH": directory.appendingPathComponent("s.sqlite").path,
                    "LOG_LEVEL": "error",
                ], directory: directory, timeout: 30)
                #expect(result.status == 1, "\(variable): \(result.output)")
                #expect(result.lines.last?.hasPrefix("Error: Environment variable \(variable) must be") == true,
                        "\(cert) \(key): \(result.output)")
                #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("s.sqlite").path),
                        "no database made")
            }
        }
    }

    /// Values that would fail every call later stop the start naming their variable, before any database is made.
    /// Found by an audit of the README's "A missing or malformed variable is named at start-up": a CA file that does
    /// not exist left every sign-in a 503, a host name that does not resolve said only `getaddrinfo`, and a
    /// `RESOURCES_PATH` without templates fell back to the built-in ones in silence.
    @Test(arguments: [
        (["SIWA_EXTRA_CA_FILE": "/nonexistent/ca.pem"], "SIWA_EXTRA_CA_FILE"),
        // Found by a black-box review: OpenSSL skips a trust store file it cannot read, and every call to Apple
        // then failed on Apple's certificate.
        (["SSL_CERT_FILE": "/nonexistent/ca.pem"], "SSL_CERT_FILE"),
        (["HOSTNAME": "not..valid"], "HOSTNAME"),
        // Found by a review: an address of no interface here (EADDRNOTAVAIL at bind) was blamed on PORT.
        (["HOSTNAME": "192.0.2.1"], "HOSTNAME"),
        (["RESOURCES_PATH": "/nonexistent/Resources"], "RESOURCES_PATH"),
        // Found by an audit: a key set but missing only turned code exchange and revocation off, in a log line.
        (["APPLE_TEAM_ID": "ABCDE12345", "APPLE_KEY_ID": "XYZ987WVU6", "APPLE_PRIVATE_KEY_PATH": "/nonexistent/k.p8"],
         "APPLE_PRIVATE_KEY_PATH"),
    ])
    func valuesThatCannotWorkAreNamedAtStart(_ variables: [String: String], _ variable: String) async throws {
        try await TestApp.withTemporaryDirectory { directory in
            let result = try await SiwaProcess.run(["serve", "--port", "0"], environment: variables.merging([
                "DATABASE_PATH": directory.appendingPathComponent("s.sqlite").path, "LOG_LEVEL": "error",
            ]) { $1 }, directory: directory, timeout: 30)
            #expect(result.status == 1, "\(variable): \(result.output)")
            #expect(result.lines.last?.hasPrefix("Error: Environment variable \(variable) must be") == true, "\(result.output)")
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("s.sqlite").path), "\(variable)")
        }
    }

    /// A `DATABASE_PATH` that is not a file (a device, here through a link to `/dev/null`, a FIFO, a folder) stops
    /// `serve`, `migrate` and an operator's command with one line naming the variable, and makes nothing beside it.
    /// Found by a review: SQLite's bare "disk I/O error", and a `/dev/null-journal` left in `/dev`.
    @Test func aDatabasePathThatIsNotAFileIsNamedAndMakesNothing() async throws {
        try await TestApp.withTemporaryDirectory { directory in
            let device = directory.appendingPathComponent("device").path
            #expect(symlink("/dev/null", device) == 0)
            let fifo = directory.appendingPathComponent("fifo").path
            #expect(mkfifo(fifo, 0o600) == 0)
            let folder = directory.appendingPathComponent("folder").path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            for (path, kind) in [(device, "a device"), (fifo, "a FIFO"), (folder, "a folder")] {
                let environment = ["DATABASE_PATH": path, "LOG_LEVEL": "error"]
                for arguments in [["serve", "--port", "0"], ["migrate"]] {
                    let result = try await SiwaProcess.run(arguments, environment: environment, directory: directory,
                                                           timeout: 30)
                    #expect(result.status == 1, "\(arguments) \(kind): \(result.output)")
                    #expect(result.lines.last == "Error: Environment variable DATABASE_PATH must be a SQLite file "
                            + "(\(path) is \(kind))", "\(result.output)")
                }
                let show = try await SiwaProcess.run(["users", "show", "nobody@example.com"], environment: environment,
                                                     directory: directory, timeout: 30)
                #expect(show.status == 1)
                #expect(show.output.contains("DATABASE_PATH: \(path) is \(kind), not a SQLite file"), "\(show.output)")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
                    == ["device", "fifo", "folder"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        }
    }

    /// A port in use stops the start naming `PORT`, or `--port` when the option gave it, before any database is
    /// made; found by an audit, the start left a new database (and with the Apple key, its refresh-token key)
    /// behind. Found by a review: `--port` was blamed on `PORT`, and `--hostname` on `HOSTNAME`.
    @Test func aPortInUseIsNamedAtStartAndMakesNothing() async throws {
        try await TestApp.with(lifecycle: false) { app in
            try await TestApp.withTemporaryDirectory { directory in
                let port = "\(app.server.localPort)"
                let cases: [([String], [String: String], String)] = [
                    (["serve", "--port", port], [:], "Error: --port must be a port free on 127.0.0.1 (bind("),
                    (["serve"], ["PORT": port], "Error: Environment variable PORT must be a port free on 127.0.0.1"),
                    (["serve", "--port", port, "--hostname", "127.0.0.1"], [:],
                     "Error: --port must be a port free on 127.0.0.1"),
                    (["serve", "--port", "0", "--hostname", "192.0.2.1"], [:],
                     "Error: --hostname must be an address or a name of this machine to listen on (bind("),
                    (["serve", "--port", "0"], ["HOSTNAME": "192.0.2.1"],
                     "Error: Environment variable HOSTNAME must be an address or a name of this machine"),
                ]
                for (arguments, variables, message) in cases {
                    let result = try await SiwaProcess.run(arguments, environment: variables.merging([
                        "DATABASE_PATH": directory.appendingPathComponent("s.sqlite").path, "LOG_LEVEL": "error",
                    ]) { given, _ in given }, directory: directory, timeout: 30)
                    #expect(result.status == 1, "\(result.output)")
                    #expect(result.lines.last?.hasPrefix(message) == true, "\(arguments): \(result.output)")
                    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
                }
                let both = try await SiwaProcess.run(["serve", "--port", port], environment: [
                    "DATABASE_PATH": directory.appendingPathComponent("s.sqlite").path, "LOG_LEVEL": "error",
                ], directory: directory, timeout: 30)
                #expect(both.lines.last?.hasSuffix("or HOSTNAME an address of this machine") == true, "\(both.output)")
            }
        }
    }

    /// The operators' read-only commands leave a cleanly closed database, siwa's or another application's in WAL
    /// mode, as they found it: no `-wal` or `-shm` beside it. Found by an audit: reading made them and left them.
    @Test func readOnlyCommandsLeaveNoWALBesideAClosedFile() async throws {
        try await TestApp.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("siwa.sqlite").path
            let environment = ["DATABASE_PATH": path, "LOG_LEVEL": "error", "IOS_APPLICATION_IDENTIFIER": "com.example.app"]
            let migrate = try await SiwaProcess.run(["migrate"], environment: environment, directory: directory, timeout: 30)
            #expect(migrate.status == 0, "\(migrate.output)")
            for arguments in [["users", "show", "nobody@example.com"], ["doctor"], ["apple", "transfer", "status"]] {
                _ = try await SiwaProcess.run(arguments, environment: environment, directory: directory, timeout: 30)
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["siwa.sqlite"],
                        "\(arguments)")
            }
            try FileManager.default.removeItem(atPath: path)
            do {
                let other = try Database(path: path)
                try other.execute(sql: "CREATE TABLE posts (x TEXT)")
            }
            for arguments in [["users", "show", "nobody@example.com"], ["doctor"], ["backup", "copy.sqlite"]] {
                let result = try await SiwaProcess.run(arguments, environment: environment, directory: directory,
                                                       timeout: 30)
                #expect(result.output.contains("holds another application's tables"), "\(arguments): \(result.output)")
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["siwa.sqlite"],
                        "\(arguments)")
            }
        }
    }

    /// `siwa dev` and `siwa fake-apple` say which option to change when a port is taken, and make nothing first.
    /// Found by an audit: they printed only the failed `bind`.
    @Test(arguments: [(["dev", "--port"], "--port", "the server"),
                      (["dev", "--apple-port"], "--apple-port", "the Apple stand-in"),
                      (["fake-apple", "--port"], "--port", "the Apple stand-in")])
    func aPortInUseNamesItsOptionBeforeAnythingIsMade(_ command: [String], _ option: String, _ what: String) async throws {
        try await TestApp.with(lifecycle: false) { app in
            try await TestApp.withTemporaryDirectory { directory in
                let busy = app.server.localPort
                let other = command[0] == "fake-apple" ? [] : [option == "--port" ? "--apple-port" : "--port", "0"]
                let result = try await SiwaProcess.run(command + ["\(busy)"] + other, environment: [:],
                                                       directory: directory, timeout: 30)
                #expect(result.status == 1, "\(result.output)")
                #expect(result.lines.last?.hasPrefix("Error: \(what) cannot listen on 127.0.0.1:\(busy) (bind(") == true,
                        "\(result.output)")
                #expect(result.lines.last?.hasSuffix("; choose another port with \(option)") == true, "\(result.output)")
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
            }
        }
    }

    /// `--port` takes the place of `PORT`: a malformed `PORT` it overrides, in the environment or in `.env`, is not
    /// read. Found by a review: it stopped the start. Without the option, the same `PORT` still does.
    @Test(arguments: [true, false])
    func portOptionOverridesAMalformedPORT(inDotEnv: Bool) async throws {
        try await TestApp.withTemporaryDirectory { directory in
            var environment = ["DATABASE_PATH": directory.appendingPathComponent("s.sqlite").path]
            if inDotEnv {
                try "PORT=abc\n".write(to: directory.appendingPathComponent(".env"), atomically: true, encoding: .utf8)
            } else {
                environment["PORT"] = "abc"
            }
            let server = try SiwaProcess(["serve", "--port", "0"], environment: environment, directory: directory)
            defer { _ = server.stop() }
            #expect(try await server.waitForPort() != 0)
            let refused = try await SiwaProcess.run(["serve"], environment: environment, directory: directory,
                                                    timeout: 30)
            #expect(refused.status == 1)
            #expect(refused.output.contains("PORT must be an integer"), "\(refused.output)")
        }
    }

    /// `siwa migrate` reads the database's variables only: a malformed `PORT` does not stop it (found by a review),
    /// a malformed `DATABASE_*` does.
    @Test func migrateReadsOnlyTheDatabasesVariables() async throws {
        try await TestApp.withTemporaryDirectory { directory in
            let database = directory.appendingPathComponent("m.sqlite").path
            let migrated = try await SiwaProcess.run(["migrate"], environment: [
                "DATABASE_PATH": database, "PORT": "abc", "TRUST_PROXY": "maybe",
            ], directory: directory, timeout: 30)
            #expect(migrated.status == 0, "\(migrated.output)")
            #expect(migrated.output.contains("Applied migrations: 1, 2"), "\(migrated.output)")
            let refused = try await SiwaProcess.run(["migrate"], environment: [
                "DATABASE_PATH": database, "DATABASE_POOL_SIZE": "many",
            ], directory: directory, timeout: 30)
            #expect(refused.status == 1)
            #expect(refused.output.contains("DATABASE_POOL_SIZE"), "\(refused.output)")
        }
    }

    /// Set values Apple would refuse are warned about at start, as `siwa doctor` reports them.
    @Test func valuesAppleWouldRefuseAreWarnedAboutAtStart() async throws {
        try await TestApp.withTemporaryDirectory { directory in
            let server = try SiwaProcess(["serve", "--port", "0"], environment: [
                "DATABASE_PATH": directory.appendingPathComponent("s.sqlite").path, "LOG_LEVEL": "notice",
                "IOS_APPLICATION_IDENTIFIER": "bad id!", "WEBSITE_APPLICATION_IDENTIFIER": "com.example.web",
                "SIWA_REDIRECT_URL": "http://example.com/cb",
            ], directory: directory)
            defer { _ = server.stop() }
            _ = try await server.waitForPort()
            #expect(server.output.contains("IOS_APPLICATION_IDENTIFIER: bad id! is not shaped like a bundle id"), "\(server.output)")
            #expect(server.output.contains("SIWA_REDIRECT_URL: http://example.com/cb is not HTTPS"), "\(server.output)")
            #expect(!server.output.contains("WEBSITE_APPLICATION_IDENTIFIER:"), "a well-formed Services ID: \(server.output)")
        }
    }
}
