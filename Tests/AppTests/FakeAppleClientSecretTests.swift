import AppleID
import CryptoCore
@testable import FakeApple
import Foundation
import HTTPCore
import JOSE
import JSON
import Synchronization
import Testing
@testable import App

/// The stand-in judges client secrets as Apple does: only the key it knows, with its team id and key id, is
/// accepted; an unknown code with an accepted secret is `invalid_grant`.
struct FakeAppleClientSecretTests {
    private func withStandIn<T>(_ body: (FakeAppleServer, DevSecrets) async throws -> T) async throws -> T {
        try await TestApp.withDevStandIn(body)
    }

    private func exchange(teamID: String = DevSecrets.teamID, keyID: String = DevSecrets.keyID,
                          key: ES256PrivateKey? = nil, secretClock: @escaping @Sendable () -> Date = Date.init)
        async throws -> AppleAuthError?
    {
        try await withStandIn { stand, secrets in
            let secret = ClientSecret(teamID: teamID, keyID: keyID, key: key ?? secrets.clientKey, clock: secretClock)
            let client = AppleAuthClient(baseURL: stand.baseURL, clientSecret: secret)
            do {
                _ = try await client.exchange(code: "c-unknown", clientID: "com.example.app", redirectURI: nil)
                return nil
            } catch let error as AppleAuthError {
                return error
            }
        }
    }

    /// The identity token of a code's exchange carries the authorization request's `nonce`, as the one that came
    /// with the code does (OpenID Connect Core 3.1.3.6); a refresh's carries none (12.2). Found by an audit: the
    /// exchange's token had no `nonce`.
    @Test func aCodesExchangeCarriesTheNonceOfItsRequestAndARefreshNone() async throws {
        func nonce(of token: String) throws -> JSONValue? {
            let payload = try #require(Base64URL.decode(String(token.split(separator: ".")[1])))
            return try JSONValue(parsing: payload)["nonce"]
        }
        try await withStandIn { stand, secrets in
            let client = AppleAuthClient(baseURL: stand.baseURL, clientSecret: ClientSecret(
                teamID: DevSecrets.teamID, keyID: DevSecrets.keyID, key: secrets.clientKey))
            for sent in ["n-0123456789", nil] {
                let (code, idToken) = try await stand.issueAuthorizationCode(
                    clientID: "com.example.app", subject: "001.nonce", email: "nonce@example.com", nonce: sent)
                #expect(try nonce(of: idToken)?.stringValue == sent)
                let exchanged = try await client.exchange(code: code, clientID: "com.example.app", redirectURI: nil)
                #expect(try nonce(of: exchanged.idToken)?.stringValue == sent)
                let refreshed = try await client.refresh(refreshToken: try #require(exchanged.refreshToken),
                                                         clientID: "com.example.app")
                #expect(try nonce(of: refreshed.idToken) == nil)
            }
        }
    }

    /// A secret minted while the server's clock ran ahead is refused (`invalid_client`: its `iat` is in Apple's
    /// future) and forgotten, so the next call, with the clock back, sends a new one. Found by an audit: the refused
    /// secret was sent until it came close to expiring, a month of 503s.
    @Test func aSecretAppleRefusedIsNotSentAgain() async throws {
        let offset = Mutex<TimeInterval>(29 * 86_400)
        try await withStandIn { stand, secrets in
            let secret = ClientSecret(teamID: DevSecrets.teamID, keyID: DevSecrets.keyID, key: secrets.clientKey,
                                      clock: { Date().addingTimeInterval(offset.withLock { $0 }) })
            let client = AppleAuthClient(baseURL: stand.baseURL, clientSecret: secret)
            func exchangeKind() async -> AppleAuthError.Kind? {
                do {
                    _ = try await client.exchange(code: "c-unknown", clientID: "com.example.app", redirectURI: nil)
                    return nil
                } catch {
                    return (error as? AppleAuthError)?.kind
                }
            }
            #expect(await exchangeKind() == .apple("invalid_client"), "a month ahead of the stand-in")
            offset.withLock { $0 = 0 }
            #expect(await exchangeKind() == .apple("invalid_grant"), "a new secret: only the code is unknown")
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

    /// Apple takes an `exp` up to 15,777,000 s from the current time, whatever `iat` says ("Generate and validate
    /// tokens", Creating a client secret); one second more is `invalid_client`. Found by an audit: the stand-in
    /// refused secrets of 180 days and a second, which Apple accepts.
    @Test func aSecretMayExpireUpTo15777000SecondsFromNow() throws {
        let key = try ES256PrivateKey.generate()
        let check = FakeAppleClientSecretCheck(knownKeys: [
            .init(publicKey: try key.publicKey, teamID: DevSecrets.teamID, keyID: DevSecrets.keyID),
        ])
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func secret(issuedAt: Double, expiresIn: Double) throws -> String {
            try JWTSigner.sign(claims: .object([
                "iss": .string(DevSecrets.teamID), "sub": .string("com.example.app"), "aud": .string("https://appleid.apple.com"),
                "iat": .number(now.timeIntervalSince1970 + issuedAt), "exp": .number(now.timeIntervalSince1970 + expiresIn),
            ]), keyID: DevSecrets.keyID, key: .es256(key))
        }
        #expect(check.isValid(try secret(issuedAt: 0, expiresIn: 15_777_000), clientID: "com.example.app", now: now))
        #expect(check.isValid(try secret(issuedAt: -86_400, expiresIn: 15_777_000), clientID: "com.example.app", now: now),
                "a day-old secret of 183.6 days: what counts is the time left")
        #expect(!check.isValid(try secret(issuedAt: 0, expiresIn: 15_777_001), clientID: "com.example.app", now: now))
        #expect(!check.isValid(try secret(issuedAt: 0, expiresIn: 15_777_000), clientID: "com.example.other", now: now))
    }
}
