import CryptoCore
import Foundation
import HTTPCore
import TestSupport
import Testing
@testable import App

/// README "Backup and restore": a copy of the database is restored with its refresh-token key. Started without it
/// (or with another key), the server and the commands that open refresh tokens refuse with one line, instead of
/// making a new key under which the stored Apple tokens can never be revoked.
@Suite(.sqliteOnly, .timeLimit(.minutes(3)))
struct RefreshTokenKeyCheckTests {
    /// What a server without `SIWA_ENCRYPTION_KEY` left in its folder after one sign-in with an authorization code
    /// (one sealed Apple token, its key in `siwa.sqlite.refresh-token-key`), and a copy of its database beside it.
    private struct Restore {
        let directory = TestApp.temporaryDirectory()
        var original: String { directory.appendingPathComponent("siwa.sqlite").path }
        var copy: String { directory.appendingPathComponent("m2copy.sqlite").path }
        var copyKey: String { copy + ".refresh-token-key" }
        var bearer = ""
        var userID = ""

        init() async throws {
            let signedIn = try await TestApp.with(directory: directory, configure: { $0.encryptionKey = nil }) { app in
                let response = try await app.signInWithAuthorizationCode(subject: "001.restored", email: "r@example.com")
                #expect(response.status == .ok)
                #expect(try await app.count("apple_tokens") == 1)
                return try response.json()
            }
            bearer = try #require(signedIn["value"] as? String)
            userID = try #require((signedIn["user"] as? [String: Any])?["id"] as? String)
            try FileManager.default.copyItem(atPath: original, toPath: copy)
        }

        func start(_ configure: @escaping (inout Configuration) -> Void = { _ in }) async throws {
            try await TestApp.with(directory: directory, configure: { configuration in
                configuration.encryptionKey = nil
                configuration.databasePath = copy
                configure(&configuration)
            }) { _ in }
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    @Test func aCopyWithoutItsKeyIsRefusedAndNoKeyIsMade() async throws {
        let restore = try await Restore()
        defer { restore.remove() }
        let expected = "DATABASE_PATH \(restore.copy) holds 1 sealed refresh token but there is no key at "
            + "\(restore.copyKey): copy the key the tokens were sealed with there, or set SIWA_ENCRYPTION_KEY"
        let refusal = await #expect(throws: RefreshTokenKeyCheck.Refusal.self) { try await restore.start() }
        #expect(refusal?.description == expected)
        #expect(!FileManager.default.fileExists(atPath: restore.copyKey))

        try await TestApp.with(directory: restore.directory, configure: { $0.encryptionKey = nil }) { app in
            let commands = [["serve"], ["apple", "validate-tokens"], ["apple", "retry-revocations"],
                            ["users", "delete", restore.userID, "--yes"], ["doctor"]]
            for arguments in commands {
                let run = try await app.command(arguments, ["DATABASE_PATH": restore.copy, "PORT": "0"])
                #expect(run.status == 1, "\(arguments): \(run.output)")
                #expect(run.output.contains(expected), "\(arguments): \(run.output)")
            }
            #expect(!FileManager.default.fileExists(atPath: restore.copyKey))
        }

        try FileManager.default.copyItem(atPath: restore.original + ".refresh-token-key", toPath: restore.copyKey)
        try await TestApp.with(directory: restore.directory, configure: { configuration in
            configuration.encryptionKey = nil
            configuration.databasePath = restore.copy
        }) { app in
            let deleted = try await app.sendJSON(.DELETE, "/api/users/me", [:], bearer: restore.bearer)
            #expect(deleted.status == .noContent)
            #expect(await app.apple.revocations().count == 1, "the restored key opened the token Apple revoked")
        }
    }

    @Test func aKeyThatDoesNotOpenTheTokensIsRefused() async throws {
        let restore = try await Restore()
        defer { restore.remove() }
        _ = try SecretFile.loadOrCreate(path: restore.copyKey, count: AES256GCM.keySize)
        let otherFile = await #expect(throws: RefreshTokenKeyCheck.Refusal.self) { try await restore.start() }
        #expect(otherFile?.description == "DATABASE_PATH \(restore.copy) holds 1 sealed refresh token that the key at "
            + "\(restore.copyKey) does not open (they were sealed with another key): copy the key they were sealed "
            + "with there, or set SIWA_ENCRYPTION_KEY to it")
        let otherVariable = await #expect(throws: RefreshTokenKeyCheck.Refusal.self) {
            try await restore.start { $0.encryptionKey = [UInt8](repeating: 7, count: AES256GCM.keySize) }
        }
        #expect(otherVariable?.description.contains("1 sealed refresh token that SIWA_ENCRYPTION_KEY does not open")
            == true)
        try FileManager.default.removeItem(atPath: restore.copyKey)
        try FileManager.default.copyItem(atPath: restore.original + ".refresh-token-key", toPath: restore.copyKey)
        try await restore.start()
    }

    @Test func aDatabaseWithoutSealedTokensStillMakesItsKey() async throws {
        let directory = TestApp.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyPath = directory.appendingPathComponent("siwa.sqlite.refresh-token-key").path
        try await TestApp.with(directory: directory, lifecycle: false) { app in
            let signIn = try await app.sendJSON(.POST, "/api/users/siwa", ["token": try app.identityToken()])
            #expect(signIn.status == .ok)
        }
        #expect(!FileManager.default.fileExists(atPath: keyPath), "without the Apple key no key is made")
        try await TestApp.with(directory: directory, configure: { $0.encryptionKey = nil }) { app in
            let users = try await app.count("users")
            #expect(app.server.services.lifecycle.isEnabled)
            #expect(users == 1)
        }
        #expect(FileManager.default.fileExists(atPath: keyPath))

        let fresh = TestApp.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: fresh) }
        try await TestApp.with(directory: fresh, configure: { $0.encryptionKey = nil }) { app in
            #expect(app.server.services.lifecycle.isEnabled)
        }
        #expect(FileManager.default.fileExists(atPath: fresh.appendingPathComponent("siwa.sqlite.refresh-token-key").path))
    }
}
