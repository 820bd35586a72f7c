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
}
