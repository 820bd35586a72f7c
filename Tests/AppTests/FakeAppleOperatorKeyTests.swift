import CryptoCore
@testable import FakeApple
import Foundation
import Testing

/// `siwa fake-apple` run on its own knows the operator's key as Apple would: the `.p8`, team id and key id the server
/// signs client secrets with (`APPLE_PRIVATE_KEY_PATH`, `APPLE_TEAM_ID`, `APPLE_KEY_ID`), and refuses any other key.
@Suite(.timeLimit(.minutes(2)))
struct FakeAppleOperatorKeyTests {
    @Test func aStandaloneStandInAcceptsTheOperatorsKeyFromTheEnvironmentAndNoOther() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("siwa-operator-key-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let operatorKey = directory.appendingPathComponent("AuthKey_OWN.p8")
        let otherKey = directory.appendingPathComponent("AuthKey_OTHER.p8")
        try Data(try ES256PrivateKey.generate().pemRepresentation().utf8).write(to: operatorKey)
        try Data(try ES256PrivateKey.generate().pemRepresentation().utf8).write(to: otherKey)
        let key = ["APPLE_PRIVATE_KEY_PATH": operatorKey.path, "APPLE_TEAM_ID": "OWNTEAM001", "APPLE_KEY_ID": "OWNKEY0001"]

        let standIn = try SiwaProcess(["fake-apple", "--port", "0", "--key-file", directory.path + "/fake-apple.json"],
                                        environment: key, directory: directory)
        defer { standIn.signal(SIGTERM) }
        let port = try await standIn.waitForPort(after: "Apple stand-in on http://127.0.0.1:")
        var doctor = key
        doctor["APPLE_BASE_URL"] = "http://127.0.0.1:\(port)"
        doctor["IOS_APPLICATION_IDENTIFIER"] = "com.example.operator"

        let accepted = try await SiwaProcess.run(["doctor"], environment: doctor, directory: directory)
        let line = try #require(accepted.lines.first { $0.contains("client secret for com.example.operator") })
        #expect(line.hasPrefix("ok   ") && line.contains("invalid_grant"), "\(accepted.output)")

        doctor["APPLE_PRIVATE_KEY_PATH"] = otherKey.path
        let refused = try await SiwaProcess.run(["doctor"], environment: doctor, directory: directory)
        let refusal = try #require(refused.lines.first { $0.contains("client secret for com.example.operator") })
        #expect(refusal.hasPrefix("FAIL ") && refusal.contains("invalid_client"), "\(refused.output)")
    }

    /// Found by an audit of the README's transfer rehearsal, whose `.env` names the development key before the
    /// stand-in has made it: the stand-in makes it, as it would unnamed; another missing key is one line naming the
    /// variable, where it was Foundation's error text.
    @Test func theDevelopmentKeyNamedBeforeItExistsIsMadeAndAnotherMissingKeyIsNamed() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("siwa-operator-key-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("fake-apple-key.pem").path
        let standIn = try SiwaProcess(["fake-apple", "--port", "0", "--key-file", keyFile],
                                      environment: ["APPLE_PRIVATE_KEY_PATH": keyFile + DevSecrets.clientKeySuffix],
                                      directory: directory)
        defer { standIn.signal(SIGTERM) }
        _ = try await standIn.waitForPort(after: "Apple stand-in on http://127.0.0.1:")
        #expect(FileManager.default.fileExists(atPath: keyFile + DevSecrets.clientKeySuffix))

        let missing = directory.appendingPathComponent("AuthKey_NONE.p8").path
        let refused = try await SiwaProcess.run(["fake-apple", "--port", "0", "--key-file", keyFile],
                                                environment: ["APPLE_PRIVATE_KEY_PATH": missing], directory: directory)
        #expect(refused.status == 1)
        #expect(refused.lines.last == "Error: APPLE_PRIVATE_KEY_PATH (or --client-secret-key): no readable key at \(missing)",
                "\(refused.output)")
    }

    /// `siwa fake-apple notify` signs with the running stand-in's key: without the file it says so and makes none
    /// (a new key would sign what no stand-in serves). Found by an audit.
    @Test func notifyWithoutTheStandInsKeyFileSaysSoAndMakesNone() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("siwa-notify-key-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let refused = try await SiwaProcess.run(["fake-apple", "notify", "--event", "email-disabled", "--sub", "001.n",
                                                 "--aud", "dev.siwa.ios", "--url", "http://127.0.0.1:9/x"],
                                                environment: [:], directory: directory)
        #expect(refused.status == 1)
        #expect(refused.lines == ["Error: no stand-in key file at fake-apple-key.pem: run this where `siwa fake-apple` "
                                  + "runs, or give its --key-file"], "\(refused.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
}
