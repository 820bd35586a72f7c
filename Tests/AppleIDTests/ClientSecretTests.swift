import CryptoCore
import Foundation
import JOSE
import JSON
import Testing
@testable import AppleID

/// The ES256 client secret Apple's token endpoints require.
struct ClientSecretTests {
    final class Clock: @unchecked Sendable {
        var now = Date(timeIntervalSince1970: 1_800_000_000)
    }

    @Test func carriesAppleClaimsAndVerifiesWithThePublicKey() async throws {
        let key = try ES256PrivateKey.generate()
        let clock = Clock()
        let secret = ClientSecret(teamID: "TEAM123456", keyID: "KEY1234567", key: key, clock: { clock.now })
        let jws = try JWS(compact: try secret.secret(for: "com.example.app"))
        #expect(jws.header.algorithm == "ES256")
        #expect(jws.header.keyID == "KEY1234567")
        try jws.verify(with: try key.publicKey)
        let claims = try JSONValue(parsing: jws.payload)
        #expect(claims["iss"]?.stringValue == "TEAM123456")
        #expect(claims["sub"]?.stringValue == "com.example.app")
        #expect(claims["aud"]?.stringValue == "https://appleid.apple.com")
        let issuedAt = try #require(claims["iat"]?.numberValue)
        let expiresAt = try #require(claims["exp"]?.numberValue)
        #expect(issuedAt == clock.now.timeIntervalSince1970)
        #expect(expiresAt - issuedAt <= ClientSecret.maximumLifetime)
    }

    @Test func isCachedPerClientAndReMintedBeforeItExpires() async throws {
        let clock = Clock()
        let secret = ClientSecret(teamID: "T", keyID: "K", key: try ES256PrivateKey.generate(), clock: { clock.now })
        let first = try secret.secret(for: "a")
        #expect(try secret.secret(for: "a") == first)
        #expect(try secret.secret(for: "b") != first)
        clock.now += ClientSecret.defaultLifetime - ClientSecret.renewalMargin - 60
        #expect(try secret.secret(for: "a") == first)
        clock.now += 120
        #expect(try secret.secret(for: "a") != first)
    }

    /// A clock set back after a secret was minted: the cached secret's `iat` is in the future, which Apple refuses,
    /// so a new one is minted (found by an audit: the month-ahead secret was sent until it came close to expiring).
    @Test func aSecretIssuedAfterTheCurrentTimeIsMintedAgain() async throws {
        let clock = Clock()
        let secret = ClientSecret(teamID: "T", keyID: "K", key: try ES256PrivateKey.generate(), clock: { clock.now })
        clock.now += 29 * 86_400
        let ahead = try secret.secret(for: "a")
        clock.now -= 29 * 86_400
        let corrected = try secret.secret(for: "a")
        #expect(corrected != ahead)
        let claims = try JSONValue(parsing: try JWS(compact: corrected).payload)
        #expect(claims["iat"]?.numberValue == clock.now.timeIntervalSince1970)
        #expect(try secret.secret(for: "a") == corrected, "cached again")
    }

    @Test func aDiscardedSecretIsMintedAgain() async throws {
        let clock = Clock()
        let secret = ClientSecret(teamID: "T", keyID: "K", key: try ES256PrivateKey.generate(), clock: { clock.now })
        let first = try secret.secret(for: "a")
        let other = try secret.secret(for: "b")
        clock.now += 1
        secret.discard(for: "a")
        #expect(try secret.secret(for: "a") != first)
        #expect(try secret.secret(for: "b") == other, "only the refused client's secret goes")
    }

    @Test func lifetimeIsClampedToAppleLimit() async throws {
        let secret = ClientSecret(teamID: "T", keyID: "K", key: try ES256PrivateKey.generate(), lifetime: 365 * 86400)
        let claims = try JSONValue(parsing: try JWS(compact: try secret.secret(for: "a")).payload)
        let lifetime = (claims["exp"]?.numberValue ?? 0) - (claims["iat"]?.numberValue ?? 0)
        #expect(lifetime == ClientSecret.maximumLifetime)
    }

    @Test func missingOrMalformedKeyFilesAreNamed() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = directory.appendingPathComponent("none.p8").path
        #expect(throws: ClientSecretError.keyFileMissing(missing)) {
            try ClientSecret.load(teamID: "T", keyID: "K", privateKeyPath: missing)
        }
        let garbage = directory.appendingPathComponent("bad.p8").path
        _ = FileManager.default.createFile(atPath: garbage, contents: Data("-----BEGIN PRIVATE KEY-----\nnope\n".utf8))
        #expect(throws: ClientSecretError.keyMalformed(garbage)) {
            try ClientSecret.load(teamID: "T", keyID: "K", privateKeyPath: garbage)
        }
        let rsa = directory.appendingPathComponent("rsa.p8").path
        _ = FileManager.default.createFile(atPath: rsa, contents: Data(RSAPrivateKey.fixturePEM.utf8))
        #expect(throws: ClientSecretError.keyMalformed(rsa)) {
            try ClientSecret.load(teamID: "T", keyID: "K", privateKeyPath: rsa)
        }
        let good = directory.appendingPathComponent("good.p8").path
        _ = FileManager.default.createFile(atPath: good, contents: Data(try ES256PrivateKey.generate().pemRepresentation().utf8))
        #expect(throws: Never.self) { try ClientSecret.load(teamID: "T", keyID: "K", privateKeyPath: good) }
    }
}
