@testable import CryptoCore
@testable import FakeApple
import Foundation
import Glibc
import TestSupport
import Testing

/// `siwa dev` keeps the refresh-token key where `siwa serve` does and `siwa backup` says it is, beside the database;
/// a key an older `siwa dev` kept beside the stand-in's key file is carried over.
@Suite(.timeLimit(.minutes(2)))
struct DevRefreshTokenKeyTests {
    /// Runs `siwa dev` in a new folder, after `prepare` ran on it, until it serves; then `body`, then SIGTERM.
    private static func withDev(prepare: (URL) throws -> Void = { _ in },
                                _ body: (URL) async throws -> Void) async throws {
        try await TestApp.withTemporaryDirectory { directory in
            try prepare(directory)
            let dev = try SiwaProcess(["dev", "--port", "0", "--apple-port", "\(try LoopbackPort.free())"],
                                      environment: ["LOG_LEVEL": "info"], directory: directory)
            _ = try await dev.waitForPort(after: "siwa on http://127.0.0.1:")
            try await body(directory)
            dev.signal(SIGTERM)
            #expect(await dev.exited(within: .seconds(30)) == 0)
        }
    }

    @Test func devKeepsTheKeyWhereBackupSaysItIs() async throws {
        try await Self.withDev { directory in
            let keyPath = directory.appendingPathComponent("siwa.sqlite.refresh-token-key").path
            #expect(FileManager.default.fileExists(atPath: keyPath))
            let legacy = DevSecrets.legacyEncryptionKeyPath(besides: directory.appendingPathComponent("fake-apple-key.pem").path)
            #expect(!FileManager.default.fileExists(atPath: legacy))
            let backup = try await SiwaProcess.run(["backup", "copy.sqlite"], environment: [:], directory: directory)
            #expect(backup.status == 0, "\(backup.output)")
            #expect(backup.output.contains("The refresh-token key is not in this backup: it is in "
                                           + "siwa.sqlite.refresh-token-key;"), "\(backup.output)")
        }
    }

    @Test func aKeyKeptBesideTheStandInsKeyFileIsCarriedOver() async throws {
        var legacyKey: [UInt8] = []
        try await Self.withDev(prepare: { directory in
            legacyKey = try SecretFile.loadOrCreate(path: directory.appendingPathComponent("fake-apple-key.pem.encryption-key").path,
                                                    count: AES256GCM.keySize)
        }) { directory in
            let keyPath = directory.appendingPathComponent("siwa.sqlite.refresh-token-key").path
            #expect(try SecretFile.load(path: keyPath, count: AES256GCM.keySize) == legacyKey)
            let attributes = try FileManager.default.attributesOfItem(atPath: keyPath)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
        }
    }
}
