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
}
