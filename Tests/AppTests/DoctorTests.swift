import CryptoCore
import Foundation
import TestSupport
import Storage
import Testing
@testable import App

/// `siwa doctor` run as the operator runs it, against the stand-in, which checks client secrets as Apple does.
@Suite(.timeLimit(.minutes(2)))
struct DoctorTests {
    /// What no line may contain: the `.p8`, a client secret (a JWT), the refresh-token key.
    private func expectNoSecret(_ output: String, _ app: TestApp) throws {
        let environment = app.operatorEnvironment
        let pem = try String(contentsOfFile: try #require(environment["APPLE_PRIVATE_KEY_PATH"]), encoding: .utf8)
        let keyBody = pem.split(separator: "\n").dropFirst().first.map(String.init) ?? pem
        #expect(!output.contains(keyBody))
        #expect(!output.contains("PRIVATE KEY"))
        #expect(!output.contains("eyJ"), "no JWT (client secret) in the output")
        #expect(!output.contains(try #require(environment["SIWA_ENCRYPTION_KEY"])))
    }

    @Test func aGoodConfigurationPassesEveryCheck() async throws {
        try await TestApp.with { app in
            let result = try await app.command(["doctor"])
            #expect(result.status == 0, "\(result.output)")
            #expect(!result.output.contains("FAIL"))
            for subject in ["IOS_APPLICATION_IDENTIFIER", "WEBSITE_APPLICATION_IDENTIFIER", "SIWA_REDIRECT_URL",
                            "APPLE_PRIVATE_KEY_PATH", "APPLE_BASE_URL",
                            PostgresCluster.testsUsePostgres ? "DATABASE_URL" : "DATABASE_PATH",
                            "client secret for \(TestApp.iosClientID)", "client secret for \(TestApp.webClientID)"] {
                #expect(result.lines.contains { $0.hasPrefix("ok   \(subject): ") }, "\(subject) in \(result.output)")
            }
            #expect(result.output.contains("is an EC P-256 key"))
            #expect(result.output.contains("invalid_grant"))
            #expect(PostgresCluster.testsUsePostgres
                    || result.lines.contains { $0.hasPrefix("ok   SIWA_ENCRYPTION_KEY: the variable opens") }, "\(result.output)")
            try expectNoSecret(result.output, app)
        }
    }

    @Test func aKeyAppleDoesNotKnowIsCaughtBeforeAnyUser() async throws {
        try await TestApp.with { app in
            let unknown = app.directory.appendingPathComponent("AuthKey_OTHER.p8")
            try Data(try ES256PrivateKey.generate().pemRepresentation().utf8).write(to: unknown)
            let result = try await app.command(["doctor"], ["APPLE_PRIVATE_KEY_PATH": unknown.path])
            #expect(result.status == 1)
            #expect(result.output.contains("ok   APPLE_PRIVATE_KEY_PATH: \(unknown.path) is an EC P-256 key"))
            for clientID in [TestApp.iosClientID, TestApp.webClientID] {
                let line = try #require(result.lines.first { $0.hasPrefix("FAIL client secret for \(clientID): ") })
                #expect(line.contains("invalid_client"))
                #expect(line.contains("APPLE_KEY_ID"))
            }
            #expect(!result.output.contains("eyJ"))
        }
    }

    @Test(arguments: [("APPLE_TEAM_ID", "OTHERTEAM1"), ("APPLE_KEY_ID", "OTHERKEY01")])
    func aWrongTeamOrKeyIDIsInvalidClient(_ variable: String, _ value: String) async throws {
        try await TestApp.with { app in
            let result = try await app.command(["doctor"], [variable: value])
            #expect(result.status == 1)
            #expect(result.lines.filter { $0.hasPrefix("FAIL client secret for ") && $0.contains("invalid_client") }.count == 2,
                    "\(result.output)")
        }
    }

    @Test func appleUnreachableFails() async throws {
        try await TestApp.with { app in
            let result = try await app.command(["doctor"], ["APPLE_BASE_URL": "http://127.0.0.1:9"])
            #expect(result.status == 1)
            #expect(result.lines.contains { $0.hasPrefix("FAIL APPLE_BASE_URL: cannot fetch http://127.0.0.1:9/auth/keys") })
            #expect(result.lines.contains { $0.hasPrefix("FAIL client secret for \(TestApp.iosClientID): cannot reach") })
        }
    }

    @Test(.sqliteOnly) func neverCreatesOrMigratesTheDatabase() async throws {
        try await TestApp.with { app in
            let missing = app.directory.appendingPathComponent("missing.sqlite").path
            let absent = try await app.command(["doctor"], ["DATABASE_PATH": missing])
            #expect(absent.status == 1)
            #expect(absent.output.contains("FAIL DATABASE_PATH: no database at \(missing)"))
            #expect(!FileManager.default.fileExists(atPath: missing))

            let empty = app.directory.appendingPathComponent("empty.sqlite").path
            #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
            let unmigrated = try await app.command(["doctor"], ["DATABASE_PATH": empty])
            #expect(unmigrated.status == 1)
            #expect(unmigrated.output.contains(
                "lacks migrations \((1...19).map(String.init).joined(separator: ", ")); run `siwa migrate` first"))
            #expect(try FileManager.default.attributesOfItem(atPath: empty)[.size] as? Int == 0, "no migration applied")

            // Another application's file is said so, not "run `siwa migrate`", which would refuse it. Found by an audit.
            let other = app.directory.appendingPathComponent("other.sqlite").path
            do { try Database(path: other).execute(sql: "CREATE TABLE schema_migrations (version TEXT)") }
            let foreign = try await app.command(["doctor"], ["DATABASE_PATH": other])
            #expect(foreign.status == 1)
            #expect(foreign.output.contains("DATABASE_PATH must be a siwa database (\(other) holds another application's"),
                    "\(foreign.output)")
            #expect(!foreign.output.contains("run `siwa migrate`"))
        }
    }

    /// Found by an audit: after a crash, doctor (and `users show`) checkpointed the WAL the crash left into the
    /// database file and deleted it, changing the file an operator may want to keep as it was.
    @Test(.sqliteOnly) func aWALLeftByACrashIsReadAndLeftAsItWas() async throws {
        try await TestApp.with { app in
            #expect(try await app.signInWithAuthorizationCode(subject: "001.crash", email: "crash@example.com").status == .ok)
            let live = app.server.configuration.databasePath
            let crashed = app.directory.appendingPathComponent("crashed.sqlite").path
            for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: live + suffix, toPath: crashed + suffix) }
            let before = try Data(contentsOf: URL(fileURLWithPath: crashed))
            let wal = try Data(contentsOf: URL(fileURLWithPath: crashed + "-wal"))
            #expect(!wal.isEmpty, "the copy holds a WAL, as a crash leaves it")
            let doctor = try await app.command(["doctor"], ["DATABASE_PATH": crashed])
            #expect(doctor.output.contains("has all \(AppMigrations.migrator.migrations.count) migrations (1 users)"),
                    "the WAL's user is read: \(doctor.output)")
            let show = try await app.command(["users", "show", "crash@example.com"], ["DATABASE_PATH": crashed])
            #expect(show.status == 0, "\(show.output)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: crashed)) == before, "the database file is unchanged")
            #expect(try Data(contentsOf: URL(fileURLWithPath: crashed + "-wal")) == wal, "the WAL is kept")
        }
    }

    @Test func aConfigurationTheServerWouldRefuseIsOneLine() async throws {
        try await TestApp.with { app in
            let result = try await app.command(["doctor"], ["PORT": "eighty"])
            #expect(result.status == 1)
            #expect(result.lines == ["FAIL PORT: must be an integer (fix it in the environment or .env)"],
                    "\(result.output)")
        }
    }

    @Test func everyVariableTheServerWouldRefuseHasItsOwnLine() async throws {
        try await TestApp.with { app in
            let result = try await app.command(["doctor"], ["PORT": "eighty", "LOG_LEVEL": "loud", "APPLE_KEY_ID": "",
                                                            "APPLE_TIMEOUT": "0", "TLS_CERT_PATH": "/tmp/cert.pem"])
            #expect(result.status == 1)
            #expect(result.lines == [
                "FAIL PORT: must be an integer (fix it in the environment or .env)",
                "FAIL APPLE_KEY_ID: must be set too: APPLE_TEAM_ID and APPLE_PRIVATE_KEY_PATH are set, and the Apple "
                    + "key's three variables go together (unset all three to run without Apple's token calls) (fix it "
                    + "in the environment or .env)",
                "FAIL TLS_KEY_PATH: must be set too: TLS_CERT_PATH is set, and the two go together (unset both to "
                    + "serve plain HTTP, behind a proxy) (fix it in the environment or .env)",
                "FAIL LOG_LEVEL: must be one of trace, debug, info, notice, warning, error, critical (fix it in the "
                    + "environment or .env)",
                "FAIL APPLE_TIMEOUT: must be seconds, at least 0.001 and at most 300 (fix it in the environment or .env)",
            ], "every problem, in the order read, and no check that needs the configuration: \(result.output)")
        }
    }

    /// What the server refuses at start beyond the variables' shapes is a FAIL line too: the TLS files, the extra
    /// CA, a HOSTNAME that is not this machine's. Found by an audit: doctor said ok to them and exited 0.
    @Test func whatTheServerRefusesAtStartFails() async throws {
        try await TestApp.with { app in
            let result = try await app.command(["doctor"], ["HOSTNAME": "zz!", "SIWA_EXTRA_CA_FILE": "/nonexistent/ca.pem"])
            #expect(result.status == 1)
            #expect(result.lines.contains { $0.hasPrefix("FAIL SIWA_EXTRA_CA_FILE: must be a readable PEM file of CA") },
                    "\(result.output)")
            #expect(result.lines.contains { $0.hasPrefix("FAIL HOSTNAME: must be an address or a name of this machine") },
                    "\(result.output)")
            #expect(result.lines.contains { $0.hasPrefix("ok   IOS_APPLICATION_IDENTIFIER: ") }, "the other checks run")
        }
    }

    /// What the start checks has a line when it holds too, and a certificate that ends within the start's warning
    /// time says so on its ok line. Found by a review: doctor printed nothing about TLS or HOSTNAME when they held,
    /// and nothing about a certificate 4 days from its end, which `siwa serve` warns about.
    @Test func whatTheServerChecksAtStartHasALineWhenItHolds() async throws {
        try await TestApp.with { app in
            let plain = try await app.command(["doctor"])
            #expect(plain.lines.contains("ok   HOSTNAME: 127.0.0.1 is an address of this machine"), "\(plain.output)")
            #expect(plain.lines.contains { $0.hasPrefix("off  TLS_CERT_PATH: not set") }, "\(plain.output)")

            let soon = try SelfSignedCertificate.make(days: 5)
            let tls = ["TLS_CERT_PATH": soon.certificatePath, "TLS_KEY_PATH": soon.privateKeyPath]
            let result = try await app.command(["doctor"], tls)
            #expect(result.status == 0, "\(result.output)")
            let line = try #require(result.lines.first { $0.hasPrefix("ok   TLS_CERT_PATH: ") }, "\(result.output)")
            #expect(line.contains("; but the certificate expires in "), "\(line)")

            let later = try SelfSignedCertificate.make(days: 60)
            let good = try await app.command(["doctor"], ["TLS_CERT_PATH": later.certificatePath,
                                                          "TLS_KEY_PATH": later.privateKeyPath])
            let expected = "ok   TLS_CERT_PATH: \(later.certificatePath) and its key in TLS_KEY_PATH load"
            #expect(good.lines.contains(expected),
                    "\(good.output)")
        }
    }

    @Test func readsTheSameDotEnvAsTheServer() async throws {
        try await TestApp.with(lifecycle: false, configure: { $0.websiteClientID = nil; $0.redirectURL = nil }) { app in
            let dotEnv = app.operatorEnvironment.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "\n")
            try Data(dotEnv.utf8).write(to: app.directory.appendingPathComponent(".env"))
            let result = try await SiwaProcess.run(["doctor"], environment: [:], directory: app.directory)
            #expect(result.status == 0, "\(result.output)")
            #expect(result.lines.contains { $0.hasPrefix("ok   IOS_APPLICATION_IDENTIFIER: \(TestApp.iosClientID)") })
            #expect(result.lines.contains { $0.hasPrefix("off  WEBSITE_APPLICATION_IDENTIFIER: not set") })
            #expect(result.lines.contains { $0.hasPrefix("off  APPLE_PRIVATE_KEY_PATH: not set") })
            #expect(!result.output.contains("client secret for"), "no Apple key, no probe")
        }
    }

    /// A redirect URL's host must be a domain Apple can register: not localhost, `localhost.`, or a name under
    /// `.localhost` (RFC 6761 §6.3), nor an IP address. Found by a review: the last two passed.
    @Test(arguments: [("app.example.com", true), ("example.com.", true), ("localhost", false), ("localhost.", false),
                      ("app.localhost", false), ("APP.LOCALHOST.", false), ("127.0.0.1", false), ("[::1]", false)])
    func aRedirectHostIsADomainName(_ host: String, _ isDomain: Bool) {
        #expect(IdentifierCheck.isDomainName(host) == isDomain)
    }
}
