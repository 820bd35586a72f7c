import AppleID
import CryptoCore
@testable import FakeApple
import Foundation
import HTTPCore
import Testing
@testable import App

/// The stand-in judges client secrets as Apple does: only the key it knows, with its team id and key id, is
/// accepted; an unknown code with an accepted secret is `invalid_grant`.
struct FakeAppleClientSecretTests {
    private func exchange(teamID: String = DevSecrets.teamID, keyID: String = DevSecrets.keyID,
                          key: ES256PrivateKey? = nil, secretClock: @escaping @Sendable () -> Date = Date.init)
        async throws -> AppleAuthError?
    {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("siwa-fake-secret-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("apple.pem").path
        let secrets = try DevSecrets.loadOrCreate(besides: keyFile)
        let stand = try FakeAppleServer(hostname: "127.0.0.1", port: 0, keys: try FakeAppleKeys.loadOrCreate(path: keyFile),
                                        clientSecretKey: try secrets.clientKey.publicKey,
                                        logger: TestApp.quietLogger("fake-apple"))
        try stand.start()
        let secret = ClientSecret(teamID: teamID, keyID: keyID, key: key ?? secrets.clientKey, clock: secretClock)
        let client = AppleAuthClient(baseURL: stand.baseURL, clientSecret: secret)
        defer { Task { await stand.shutdown() } }
        do {
            _ = try await client.exchange(code: "c-unknown", clientID: "com.example.app", redirectURI: nil)
            return nil
        } catch let error as AppleAuthError {
            return error
        }
    }

    @Test func theKnownKeyWithAnUnknownCodeIsInvalidGrant() async throws {
        #expect(try await exchange()?.kind == .apple("invalid_grant"))
    }

    @Test func aKeyTheStandInDoesNotKnowIsInvalidClient() async throws {
        #expect(try await exchange(key: try ES256PrivateKey.generate())?.kind == .apple("invalid_client"))
    }

    @Test func anotherTeamIsInvalidClient() async throws {
        #expect(try await exchange(teamID: "OTHERTEAM1")?.kind == .apple("invalid_client"))
    }

    @Test func anotherKeyIDIsInvalidClient() async throws {
        #expect(try await exchange(keyID: "OTHERKEY01")?.kind == .apple("invalid_client"))
    }

    @Test func anExpiredSecretIsInvalidClient() async throws {
        let past = Date().addingTimeInterval(-2 * ClientSecret.defaultLifetime)
        #expect(try await exchange(secretClock: { past })?.kind == .apple("invalid_client"))
    }
}
