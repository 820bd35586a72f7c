import Foundation
import HTTPCore
import Testing
import Web
@testable import App

/// Reading the environment (README "Configuration"): defaults, and a named error for each bad variable.
struct ConfigurationTests {
    @Test func defaultsMatchTheDesign() throws {
        let configuration = try Configuration(Environment([:]))
        #expect(configuration.hostname == "127.0.0.1")
        #expect(configuration.port == 8080)
        #expect(configuration.databasePath == "siwa.sqlite")
        #expect(configuration.appleBaseURL == "https://appleid.apple.com")
        #expect(configuration.maxBodySize == 1_048_576)
        #expect(!configuration.trustProxy)
        #expect(configuration.appleKey == nil)
        #expect(configuration.problems.count == 4)
    }

    @Test func readsEveryVariable() throws {
        let configuration = try Configuration(Environment([
            "HOSTNAME": "0.0.0.0", "PORT": "9000", "DATABASE_PATH": "/tmp/x.sqlite",
            "IOS_APPLICATION_IDENTIFIER": "com.a, com.b", "WEBSITE_APPLICATION_IDENTIFIER": "com.a.web",
            "SIWA_REDIRECT_URL": "https://a.example/login/siwa/callback", "APPLE_BASE_URL": "http://127.0.0.1:9090/",
            "APPLE_TEAM_ID": "T", "APPLE_KEY_ID": "K", "APPLE_PRIVATE_KEY_PATH": "/k.p8",
            "SIWA_ENCRYPTION_KEY": String(repeating: "ab", count: 32), "TRUST_PROXY": "true",
            "MAX_BODY_SIZE": "2048", "LOG_LEVEL": "debug",
        ]))
        #expect(configuration.port == 9000)
        #expect(configuration.iosClientIDs == ["com.a", "com.b"])
        #expect(configuration.appleBaseURL == "http://127.0.0.1:9090")
        #expect(configuration.appleKey == .init(teamID: "T", keyID: "K", privateKeyPath: "/k.p8"))
        #expect(configuration.encryptionKey == [UInt8](repeating: 0xab, count: 32))
        #expect(configuration.trustProxy)
        #expect(configuration.maxBodySize == 2048)
        #expect(configuration.logLevel == .debug)
        #expect(configuration.problems.isEmpty)
    }

    @Test(arguments: [
        (["PORT": "eighty"], "PORT"),
        (["PORT": "70000"], "PORT"),
        (["APPLE_BASE_URL": "http://appleid.apple.com"], "APPLE_BASE_URL"),
        (["APPLE_BASE_URL": "ftp://127.0.0.1"], "APPLE_BASE_URL"),
        // Found by a black-box review: taken at start, then every call to Apple failed (a fragment made each one
        // `GET /`, the ports an invalid URL).
        (["APPLE_BASE_URL": "http://127.0.0.1:9090#frag"], "APPLE_BASE_URL must be a URL without a #fragment"),
        (["APPLE_BASE_URL": "http://127.0.0.1:99999"],
         "APPLE_BASE_URL must be an absolute URL such as https://appleid.apple.com (invalid port)"),
        (["APPLE_BASE_URL": "http://127.0.0.1:0"], "(invalid port)"),
        (["APPLE_BASE_URL": "https://apple_id.example"], "(invalid host)"),
        (["SIWA_REDIRECT_URL": "/login/siwa/callback"], "SIWA_REDIRECT_URL"),
        (["SIWA_ENCRYPTION_KEY": "c2hvcnQ="], "SIWA_ENCRYPTION_KEY"),
        (["TRUST_PROXY": "maybe"], "TRUST_PROXY"),
        (["MAX_BODY_SIZE": "0"], "MAX_BODY_SIZE"),
        (["LOG_LEVEL": "loud"], "LOG_LEVEL"),
        (["APPLE_TEAM_ID": "T", "APPLE_KEY_ID": "K"], "APPLE_PRIVATE_KEY_PATH"),
        (["TLS_CERT_PATH": "/c.pem"], "TLS_KEY_PATH"),
        // Found by a black-box review: each connection would open an empty database of its own.
        (["DATABASE_PATH": ":memory:"], "DATABASE_PATH"),
        // Swift's number parsing took hexadecimal, exponents and infinities for seconds.
        (["APPLE_TIMEOUT": "0x2"], "APPLE_TIMEOUT"),
        (["APPLE_TIMEOUT": "1e0"], "APPLE_TIMEOUT"),
        (["APPLE_TIMEOUT": "nan"], "APPLE_TIMEOUT"),
        (["APPLE_TIMEOUT": "2."], "APPLE_TIMEOUT"),
        (["APPLE_CHORES_INTERVAL": "0x18h"], "APPLE_CHORES_INTERVAL"),
        (["APPLE_CHORES_INTERVAL": "1e1m"], "APPLE_CHORES_INTERVAL"),
        // A TLS file libpq would open only when it connects: the start waited 30 s, then blamed the server.
        (["DATABASE_URL": "postgres://u@db.example.com/siwa?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem"],
         "sslrootcert names a readable file"),
    ])
    func badVariablesAreNamed(_ variables: [String: String], _ name: String) {
        #expect {
            try Configuration(Environment(variables))
        } throws: { error in
            "\(error)".contains(name)
        }
    }

    /// A variable missing from a set that goes together is named with the ones that are set, and how to do without
    /// them all: the Apple key's variables and the TLS pair are optional. Found by a review: "Missing required
    /// environment variable APPLE_TEAM_ID" when only `APPLE_PRIVATE_KEY_PATH` was set.
    @Test(arguments: [
        (["APPLE_PRIVATE_KEY_PATH": "/k.p8"],
         "Environment variable APPLE_TEAM_ID must be set too: APPLE_PRIVATE_KEY_PATH is set, and the Apple key's "
            + "three variables go together (unset all three to run without Apple's token calls)"),
        (["APPLE_TEAM_ID": "T", "APPLE_KEY_ID": "K"],
         "Environment variable APPLE_PRIVATE_KEY_PATH must be set too: APPLE_TEAM_ID and APPLE_KEY_ID are set, and "
            + "the Apple key's three variables go together (unset all three to run without Apple's token calls)"),
        (["TLS_CERT_PATH": "/c.pem"],
         "Environment variable TLS_KEY_PATH must be set too: TLS_CERT_PATH is set, and the two go together (unset "
            + "both to serve plain HTTP, behind a proxy)"),
        (["TLS_KEY_PATH": "/k.pem"],
         "Environment variable TLS_CERT_PATH must be set too: TLS_KEY_PATH is set, and the two go together (unset "
            + "both to serve plain HTTP, behind a proxy)"),
    ])
    func aVariableMissingFromItsSetSaysWhichAreSet(_ variables: [String: String], _ message: String) {
        #expect {
            try Configuration(Environment(variables))
        } throws: { error in
            "\(error)" == message
        }
    }

    /// A user name or password in a URL variable is refused at start, and the error does not repeat it. Found by an
    /// audit: `APPLE_BASE_URL=http://apple:pw@127.0.0.1:9090` started, every call to Apple failed, and each log line
    /// of a failed call printed the password.
    @Test(arguments: [("APPLE_BASE_URL", "http://apple:Sup3rSecretPw@127.0.0.1:9090"),
                      ("APPLE_BASE_URL", "https://Sup3rSecretPw@appleid.apple.com"),
                      ("SIWA_REDIRECT_URL", "https://u:Sup3rSecretPw@a.example/login/siwa/callback")])
    func aURLWithAUserOrPasswordIsRefusedWithoutRepeatingIt(_ name: String, _ value: String) {
        #expect {
            try Configuration(Environment([name: value]))
        } throws: { error in
            "\(error)".contains(name) && "\(error)".contains("user name or password")
                && !"\(error)".contains("Sup3rSecretPw")
        }
    }

    /// A chores interval without the Apple key says at start that the chores are off too. Found by a black-box
    /// review: it was taken without a word.
    @Test func aChoresIntervalWithoutTheKeySaysTheChoresAreOff() throws {
        let problems = try Configuration(Environment(["APPLE_CHORES_INTERVAL": "5m"])).problems
        #expect(problems.contains { $0.hasSuffix("and so are the chores APPLE_CHORES_INTERVAL asks for.") })
        #expect(try Configuration(Environment([:])).problems.contains { $0.hasSuffix("token revocation are off.") })
    }

    /// A variable `.env` sets more than once is named at start with its lines. Found by a review: the last one was
    /// taken silently, which hides a stale line left above an edit.
    @Test func aVariableSetTwiceInDotEnvIsNamedAtStart() throws {
        var environment = Environment(["PORT": "8081"])
        environment.repeatedInDotEnv = ["PORT": [2, 9], "HOSTNAME": [1, 3]]
        let problems = try Configuration(environment).problems
        #expect(Array(problems.prefix(2)) == [".env sets HOSTNAME on lines 1, 3: the last one counts.",
                                              ".env sets PORT on lines 2, 9: the last one counts."])
    }

    /// Decimal seconds, with spaces around as every other number takes them, are read.
    @Test func decimalSecondsAreRead() throws {
        #expect(try Configuration(Environment(["APPLE_TIMEOUT": " 1.5 "])).appleTimeout == .milliseconds(1500))
        #expect(try Configuration(Environment(["APPLE_CHORES_INTERVAL": "1.5h"])).appleChoresInterval == 5400)
    }

    /// A number past `Int` is named as out of range, as one inside `Int` but past the limit is, not as "not an
    /// integer".
    @Test(arguments: ["99999999999999999999", "-99999999999999999999"]) func aHugeIntegerIsOutOfRange(_ value: String) {
        #expect(throws: ConfigurationError.malformed(name: "MAX_BODY_SIZE", expected: "an integer in 1...1073741824")) {
            try Configuration(Environment(["MAX_BODY_SIZE": value]))
        }
    }

    /// `SSL_CERT_FILE` in `.env` reaches the Apple client: OpenSSL reads it from the process environment only, so
    /// `.env`'s was ignored and every call to an HTTPS Apple behind a private CA failed. Found by a black-box
    /// review.
    @Test func theTrustStoreFileIsReadFromDotEnv() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("siwa-\(UUID().uuidString).env")
        try "SSL_CERT_FILE=/etc/test-ca.pem\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let configuration = try Configuration.load(dotEnvPath: file.path, environment: [:])
        #expect(configuration.appleClientConfiguration.trustStoreFile == "/etc/test-ca.pem")
    }

    @Test func loopbackHostsAreRecognised() {
        for host in ["127.0.0.1", "127.1.2.3", "localhost", "LocalHost", "[::1]", "::1"] { #expect(HTTPClient.isLoopback(host: host), "\(host)") }
        for host in ["128.0.0.1", "example.com", "127.0.0", "10.0.0.1"] { #expect(!HTTPClient.isLoopback(host: host), "\(host)") }
    }

    @Test func dotEnvIsReadAndTheEnvironmentWins() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("siwa-\(UUID().uuidString).env")
        try "PORT=7000\nHOSTNAME=0.0.0.0\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let configuration = try Configuration.load(dotEnvPath: file.path, environment: ["PORT": "7001"])
        #expect(configuration.port == 7001)
        #expect(configuration.hostname == "0.0.0.0")
        // A variable set empty in the environment still wins: it unsets the file's, and the default applies (so an
        // operator can turn off from the environment what .env turns on).
        let empty = try Configuration.load(dotEnvPath: file.path, environment: ["PORT": ""])
        #expect(empty.port == Configuration().port)
        #expect(empty.hostname == "0.0.0.0")
    }

    /// A file named with `--env-file` must be there: a typo stops every command reading the configuration with one
    /// line, before it does anything (it used to be skipped, and `siwa migrate` made `siwa.sqlite` in the working
    /// folder). `.env`, read when no `--env-file` is given, stays optional.
    @Test(.timeLimit(.minutes(2))) func anEnvFileThatIsNotThereStopsTheCommandBeforeItDoesAnything() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("siwa-env-file-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let typo = directory.appendingPathComponent("prod.evn").path
        let commands = [["migrate"], ["serve", "--port", "0"], ["doctor"], ["users", "show", "a@example.com"],
                        ["apple", "validate-tokens"], ["apple", "transfer", "status"]]
        let refusals = commands.map { ($0, typo, "no file at \(typo)") }
            + [(["migrate"], directory.path, "cannot read \(directory.path)")]
        for (arguments, file, line) in refusals {
            let result = try await SiwaProcess.run(arguments + ["--env-file", file], environment: [:],
                                                   directory: directory, timeout: 20)
            #expect(result.status == 1, "\(arguments): \(result.output)")
            #expect(result.lines == ["Error: --env-file: \(line)"], "\(arguments): \(result.output)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "nothing was created")

        let named = directory.appendingPathComponent("named.env")
        try "DATABASE_PATH=named.sqlite\n".write(to: named, atomically: true, encoding: .utf8)
        let migrateNamed = try await SiwaProcess.run(["migrate", "--env-file", named.path], environment: [:],
                                                     directory: directory)
        #expect(migrateNamed.status == 0, "\(migrateNamed.output)")
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("named.sqlite").path))
        let migrateDefault = try await SiwaProcess.run(["migrate"], environment: [:], directory: directory)
        #expect(migrateDefault.status == 0, "no .env is no variables: \(migrateDefault.output)")
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("siwa.sqlite").path))
    }

    /// `siwa dev` wires the server to the stand-in itself, and takes how the server behaves from the environment as
    /// `siwa serve` does. Found by an audit: TRUST_PROXY, MAX_BODY_SIZE and BODY_TIMEOUT were ignored, while its
    /// start-up line advised setting TRUST_PROXY.
    @Test func devTakesTheServersBehaviourFromTheEnvironmentAndItsWiringFromItself() throws {
        let configuration = try Configuration.development(
            hostname: "127.0.0.1", port: 8080, applePort: 9090, databasePath: "dev.sqlite",
            environment: ["TRUST_PROXY": "true", "MAX_BODY_SIZE": "100", "BODY_TIMEOUT": "3", "APPLE_TIMEOUT": "2",
                          "APPLE_BASE_URL": "https://appleid.apple.com", "PORT": "not a port",
                          "DATABASE_URL": "postgres://db/siwa", "IOS_APPLICATION_IDENTIFIER": "com.example.app"])
        #expect(configuration.trustProxy)
        #expect(configuration.maxBodySize == 100)
        #expect(configuration.bodyTimeoutSeconds == 3)
        #expect(configuration.appleTimeout == .seconds(2))
        #expect(configuration.appleBaseURL == "http://127.0.0.1:9090")
        #expect(configuration.port == 8080 && configuration.databaseURL == nil && configuration.databasePath == "dev.sqlite")
        #expect(configuration.iosClientIDs == [Configuration.developmentIOSClientID])
        let refused = #expect(throws: ConfigurationError.self) {
            try Configuration.development(hostname: "127.0.0.1", port: 8080, applePort: 9090, databasePath: "d",
                                          environment: ["BODY_TIMEOUT": "0"])
        }
        #expect(refused?.description.contains("BODY_TIMEOUT") == true)
    }

    /// A folder without the templates is named with `RESOURCES_PATH` and the fix, which the start says before it
    /// makes a database and `siwa doctor` says as a failure; the checkout's own folder passes. Found by a black-box
    /// review: a binary copied away from its checkout made and migrated the database, then exited on "Template
    /// directory 'Resources/Views' not found", and doctor said all was well.
    @Test func aFolderWithoutTheTemplatesIsNamedWithTheVariableAndTheFix() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("no-resources-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let problem = try #require(Configuration.resourcesProblem(at: empty.path))
        #expect(problem.description == "Environment variable RESOURCES_PATH must be set to a folder holding Views/ "
            + "and Public/ (none in \(empty.path), beside the binary, or in the checkout it was built from: copy the "
            + "checkout's Resources/ next to the binary and point RESOURCES_PATH at it)")
        #expect(Configuration.resourcesProblem(at: Configuration.locateResources("Resources")) == nil)
        let findings = Doctor.startChecks(Configuration(), fixIn: ".env")
        #expect(findings.contains { $0.subject == "RESOURCES_PATH" && $0.verdict == .ok })
    }
}
