import Foundation
import Testing
@testable import CryptoCore

struct SecretFileTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("siwa-secret-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    @Test func makesAPrivateFileOnceThenReadsItBack() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("key").path
        let first = try SecretFile.loadOrCreate(path: path, count: 32)
        #expect(first.count == 32)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
        #expect(try SecretFile.loadOrCreate(path: path, count: 32) == first)
        let other = try SecretFile.loadOrCreate(path: directory.appendingPathComponent("other").path, count: 32)
        #expect(other != first)
    }

    @Test func concurrentCallersAllGetTheOneKeyWrittenAndNoTemporaryFileIsLeft() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("key").path
        let keys = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<16 { group.addTask { try SecretFile.loadOrCreate(path: path, count: 32) } }
            return try await group.reduce(into: [[UInt8]]()) { $0.append($1) }
        }
        #expect(keys.count == 16)
        #expect(Set(keys).count == 1)
        #expect(keys.first == (try SecretFile.loadOrCreate(path: path, count: 32)))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["key"])
    }

    @Test func aFileOfAnotherSizeIsAnErrorAndIsLeftAsItIs() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("key").path
        for size in [0, 31, 33] {
            try Data(repeating: 7, count: size).write(to: URL(fileURLWithPath: path))
            #expect(throws: SecretFile.Failure.wrongSize(path: path, expected: 32)) {
                try SecretFile.loadOrCreate(path: path, count: 32)
            }
            // The file is untouched. (Its size is read from its attributes: Foundation's `contents(atPath:)` leaks
            // its buffer for an empty file under LeakSanitizer.)
            #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int == size)
            if size > 0 { #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(repeating: 7, count: size)) }
        }
    }

    @Test func anUnwritableFolderIsAnError() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("missing/key").path
        #expect(throws: SecretFile.Failure.unusable(path: path, errno: ENOENT)) {
            try SecretFile.loadOrCreate(path: path, count: 32)
        }
    }

    /// `place` creates its file with mode 0600 from the start, links it into place, and neither replaces nor follows
    /// what is already at the path (a planted link stays a dangling link, its target is never made).
    @Test func placeNeverReplacesNorFollowsWhatIsThere() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("key.pem").path
        #expect(try SecretFile.place(path: path, bytes: Array("first".utf8)))
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
        #expect(try SecretFile.place(path: path, bytes: Array("second".utf8)) == false)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "first")
        let link = directory.appendingPathComponent("link.pem").path
        let target = directory.appendingPathComponent("target.pem").path
        #expect(symlink(target, link) == 0)
        #expect(try SecretFile.place(path: link, bytes: Array("third".utf8)) == false)
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["key.pem", "link.pem"])
    }
}

/// A value given for a key's path that is the key's text is never repeated by a message. Found by a review: a `.p8`
/// pasted into `APPLE_PRIVATE_KEY_PATH` came back whole in the start-up error and in `siwa doctor`.
struct ConfiguredPathTests {
    @Test(arguments: [
        "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----",
        "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg",
        "MI" + String(repeating: "A", count: ConfiguredPath.encodedKeyLength - 2),
        "a\nb", "a\u{7F}b",
    ])
    func aKeysTextIsWithheld(_ value: String) {
        #expect(ConfiguredPath.named(value) == ConfiguredPath.withheld)
    }

    @Test(arguments: [
        "/etc/siwa/AuthKey_ABC123DEFG.p8", "AuthKey.p8", "/run/secrets/apple-key",
        "MI" + String(repeating: "A", count: ConfiguredPath.encodedKeyLength - 3),
        "MI/" + String(repeating: "A", count: ConfiguredPath.encodedKeyLength) + ".p8",
        "/very/long/folder/name/that/has/no/extension/at/all/key",
    ])
    func aPathIsNamed(_ value: String) {
        #expect(ConfiguredPath.named(value) == value)
    }
}
