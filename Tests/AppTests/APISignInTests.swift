import CryptoCore
@testable import FakeApple
import Foundation
import HTTPCore
import Storage
import TestSupport
import Testing
@testable import App

/// `POST /api/users/siwa`, `GET /api/users/me`, `POST /api/users/logout` over real sockets, against the stand-in.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct APISignInTests {
    @Test func healthAnswersOK() async throws {
        try await TestApp.with { app in
            let response = try await app.send(.GET, "/health")
            #expect(response.status == .ok)
            #expect(try response.json()["status"] as? String == "ok")
        }
    }

    /// `/ready` (both engines): 200 while the database answers; 503 `unavailable` with `Retry-After` once shutdown
    /// has begun, while `/health` stays 200.
    @Test func readyAnswersOKUntilShutdownBegins() async throws {
        try await TestApp.with { app in
            let ready = try await app.send(.GET, "/ready")
            #expect(ready.status == .ok)
            #expect(try ready.json()["status"] as? String == "ok")
            app.server.services.readiness.beginDraining()
            let draining = try await app.send(.GET, "/ready")
            #expect(draining.status == .serviceUnavailable)
            #expect(try draining.json()["status"] as? String == "unavailable")
            #expect(draining.headers["Retry-After"] == "\(ReadinessController.retryAfterSeconds)")
            #expect(try await app.send(.GET, "/health").status == .ok)
        }
    }

    @Test func newUserSignsInAndReadsProfile() async throws {
        try await TestApp.with { app in
            let token = try app.identityToken(subject: "001.new.user", email: "jane@example.com")
            let response = try await app.sendJSON(.POST, "/api/users/siwa", ["token": token, "name": "Jane Appleseed"])
            #expect(response.status == .ok)
            #expect(response.headers["Cache-Control"] == "no-store", "a bearer token is never cached (RFC 6749 §5.1)")
            let body = try response.json()
            let value = try #require(body["value"] as? String)
            #expect(UUID(uuidString: body["id"] as? String ?? "") != nil)
            let userID = try #require((body["user"] as? [String: Any])?["id"] as? String)
            #expect(value.utf8.count == 43)
            #expect(Base64URLCheck.decodedCount(value) == 32)
            #expect(BearerTokenValue(value).id == UUID(uuidString: body["id"] as? String ?? ""))
            // Ids are written in lower case (RFC 9562 §4), as the database keeps them: each names its row.
            let tokenID = try #require(body["id"] as? String)
            #expect(tokenID == tokenID.lowercased() && userID == userID.lowercased())
            let rows = try await app.server.services.database.readOne(SQL(
                "SELECT COUNT(*) FROM tokens JOIN users ON users.id = tokens.user_id WHERE tokens.id = ? AND users.id = ?",
                [UUID(uuidString: tokenID), UUID(uuidString: userID)])) { row in try row[0] as Int }
            #expect(rows == 1)

            let me = try await app.sendJSON(.GET, "/api/users/me", [:], bearer: value)
            #expect(me.status == .ok)
            #expect(me.headers["Cache-Control"] == "no-store")
            let profile = try me.json()
            #expect(profile["id"] as? String == userID)
            #expect(profile["name"] as? String == "Jane Appleseed")
            #expect(profile["email"] as? String == "jane@example.com")
            #expect(profile["isPrivateEmail"] as? Bool == false)
            #expect(profile["username"] is String)
            #expect(try await app.count("users") == 1)
        }
    }

    @Test func returningUserIsFoundBySubNotEmailAndEmailUpdates() async throws {
        try await TestApp.with { app in
            let first = try await app.sendJSON(.POST, "/api/users/siwa", [
                "token": try app.identityToken(subject: "001.same", email: "old@example.com"), "name": "Jane",
            ])
            let again = try await app.sendJSON(.POST, "/api/users/siwa", [
                "token": try app.identityToken(subject: "001.same", email: "new@example.com"), "name": "Ignored",
            ])
            let other = try await app.sendJSON(.POST, "/api/users/siwa", [
                "token": try app.identityToken(subject: "001.other", email: "new@example.com"),
            ])
            let firstUser = (try first.json()["user"] as? [String: Any])?["id"] as? String
            #expect(firstUser != nil)
            #expect((try again.json()["user"] as? [String: Any])?["id"] as? String == firstUser)
            #expect((try other.json()["user"] as? [String: Any])?["id"] as? String != firstUser)
            let me = try await app.sendJSON(.GET, "/api/users/me", [:], bearer: try again.json()["value"] as? String)
            #expect(try me.json()["email"] as? String == "new@example.com")
            #expect(try me.json()["name"] as? String == "Jane")
            #expect(try await app.count("users") == 2)
        }
    }

    @Test func newUserWithoutEmailIsRefusedAndNothingIsWritten() async throws {
        try await TestApp.with { app in
            let response = try await app.sendJSON(.POST, "/api/users/siwa", ["token": try app.identityToken(email: nil)])
            #expect(response.status == .badRequest)
            #expect(try response.json()["error"] as? Bool == true)
            #expect(try await app.count("users") == 0)
            #expect(try await app.count("tokens") == 0)
        }
    }

    @Test func privateRelayEmailIsRecorded() async throws {
        try await TestApp.with { app in
            let signIn = try await app.sendJSON(.POST, "/api/users/siwa", [
                "token": try app.identityToken(email: "abc@privaterelay.appleid.com", isPrivateEmail: true),
            ])
            let me = try await app.sendJSON(.GET, "/api/users/me", [:], bearer: try signIn.json()["value"] as? String)
            #expect(try me.json()["isPrivateEmail"] as? Bool == true)
        }
    }

    @Test func nonceMustMatchRawOrHashed() async throws {
        try await TestApp.with { app in
            let raw = "n-0S6_WzA2Mj"
            let plain = try app.identityToken(subject: "001.nonce", nonce: raw)
            let hashed = try app.identityToken(subject: "001.nonce", nonce: SHA256.hexHash(raw))
            #expect(try await app.sendJSON(.POST, "/api/users/siwa", ["token": plain, "nonce": raw]).status == .ok)
            #expect(try await app.sendJSON(.POST, "/api/users/siwa", ["token": hashed, "nonce": raw]).status == .ok)
            let wrong = try await app.sendJSON(.POST, "/api/users/siwa", ["token": plain, "nonce": "other"])
            #expect(wrong.status == .unauthorized)
            // Found by an audit: a wrong nonce read "invalid identity token", as a forged token does.
            #expect((try wrong.json()["reason"] as? String)?.contains("the nonce sent is not the identity token's") == true)
        }
    }

    /// A token bound to a nonce is accepted only with it: left out, 401 saying so (a stolen token cannot be replayed
    /// by omitting it); a request nonce with a token that has none stays 401. Nothing is written either way.
    @Test func aTokenWithANonceNeedsTheRequestsNonce() async throws {
        try await TestApp.with { app in
            let raw = "n-0S6_WzA2Mj"
            let bound = try app.identityToken(subject: "001.bound", nonce: SHA256.hexHash(raw))
            let omitted = try await app.sendJSON(.POST, "/api/users/siwa", ["token": bound])
            #expect(omitted.status == .unauthorized)
            #expect(try omitted.json()["error"] as? Bool == true)
            let reason = try #require(try omitted.json()["reason"] as? String)
            #expect(reason.contains("carries a nonce") && reason.contains("send the nonce"))
            let unbound = try app.identityToken(subject: "001.bound")
            #expect(try await app.sendJSON(.POST, "/api/users/siwa", ["token": unbound, "nonce": raw]).status
                    == .unauthorized)
            #expect(try await app.count("users") == 0)
            #expect(try await app.sendJSON(.POST, "/api/users/siwa", ["token": bound, "nonce": raw]).status == .ok)
            #expect(try await app.sendJSON(.POST, "/api/users/siwa", ["token": unbound]).status == .ok)
        }
    }

    @Test func refusedTokensAre401AndWriteNothing() async throws {
        try await TestApp.with { app in
            let otherKeys = try FakeAppleKeys(privateKey: try RSAPrivateKey.generate(bits: 2048))
            let cases: [(String, String)] = [
                ("wrong audience", try app.identityToken(audience: "com.example.other")),
                ("expired", try app.identityToken(issuedAt: Date().addingTimeInterval(-3600), lifetime: 600)),
                ("issued in the future", try app.identityToken(issuedAt: Date().addingTimeInterval(3600))),
                ("signed by another key", try otherKeys.mintIdentityToken(IdentityTokenRequest(
                    subject: "001.x", audience: TestApp.iosClientID, email: "x@example.com"))),
                ("not a JWT", "not-a-jwt"),
                ("web audience on the API", try app.identityToken(audience: TestApp.webClientID)),
                // Found by a review: stored on SQLite, a 500 on PostgreSQL, whose text holds no NUL.
                ("an email with a NUL", try app.identityToken(subject: "001.nul", email: "a\u{0}b@example.com")),
                ("a sub with a NUL", try app.identityToken(subject: "001.\u{0}", email: "nul@example.com")),
            ]
            for (name, token) in cases {
                let response = try await app.sendJSON(.POST, "/api/users/siwa", ["token": token])
                #expect(response.status == .unauthorized, "\(name)")
                #expect(try response.json()["error"] as? Bool == true, "\(name)")
                #expect(!response.text.contains(token), "\(name): the reason must not echo the token")
                // RFC 9110 §15.5.2: a 401 carries a challenge. Found by an audit: these had none.
                #expect(response.headers["WWW-Authenticate"] == #"Bearer realm="siwa""#, "\(name)")
            }
            #expect(try await app.count("users") == 0)
        }
    }

    @Test func malformedRequestsAre400Or415() async throws {
        try await TestApp.with { app in
            #expect(try await app.sendJSON(.POST, "/api/users/siwa", [:]).status == .badRequest)
            #expect(try await app.sendJSON(.POST, "/api/users/siwa", ["token": 42]).status == .badRequest)
            let notJSON = try await app.send(.POST, "/api/users/siwa", headers: ["Content-Type": "application/json"],
                                             body: Array("{".utf8))
            #expect(notJSON.status == .badRequest)
            let wrongType = try await app.send(.POST, "/api/users/siwa", headers: ["Content-Type": "text/plain"],
                                               body: Array("token=x".utf8))
            #expect(wrongType.status == .unsupportedMediaType)
            #expect(try wrongType.json()["error"] as? Bool == true)
            #expect(try await app.send(.GET, "/api/users/siwa").status == .methodNotAllowed)
            #expect(try await app.send(.GET, "/api/nothing").status == .notFound)
        }
    }

    @Test func bearerAuthenticationAndLogout() async throws {
        try await TestApp.with { app in
            #expect(try await app.send(.GET, "/api/users/me").status == .unauthorized)
            let bogus = try await app.sendJSON(.GET, "/api/users/me", [:], bearer: "AAAA")
            #expect(bogus.status == .unauthorized)
            #expect(bogus.headers["WWW-Authenticate"]?.hasPrefix("Bearer") == true)
            let signIn = try await app.sendJSON(.POST, "/api/users/siwa", ["token": try app.identityToken()])
            let value = try #require(try signIn.json()["value"] as? String)
            #expect(try await app.sendJSON(.POST, "/api/users/logout", [:], bearer: value).status == .noContent)
            #expect(try await app.sendJSON(.GET, "/api/users/me", [:], bearer: value).status == .unauthorized)
        }
    }

    /// Two `Authorization` fields are 400 whichever holds a live token: found by an audit, the server used the
    /// first, so a proxy that authorized the other copy could let one user delete another's account.
    @Test func twoAuthorizationFieldsAre400AndChangeNothing() async throws {
        try await TestApp.with(configure: { $0.metricsToken = String(repeating: "m", count: 32) }) { app in
            var values: [String] = []
            for _ in 0..<2 {
                let signIn = try await app.sendJSON(.POST, "/api/users/siwa", ["token": try app.identityToken()])
                values.append(try #require(try signIn.json()["value"] as? String))
            }
            let both: HTTPHeaders = ["Authorization": "Bearer \(values[0])", "Authorization": "Bearer \(values[1])"]
            for (method, path) in [(HTTPMethod.GET, "/api/users/me"), (.DELETE, "/api/users/me"),
                                   (.POST, "/api/users/logout")] {
                let response = try await app.send(method, path, headers: both)
                #expect(response.status == .badRequest, "\(method) \(path)")
                #expect(try response.json()["reason"] as? String == "More than one Authorization header")
            }
            let metrics = try await app.send(.GET, "/metrics", headers: [
                "Authorization": "Bearer nope", "Authorization": "Bearer \(String(repeating: "m", count: 32))",
            ])
            #expect(metrics.status == .badRequest)
            #expect(try await app.count("users") == 2)
            for value in values {
                #expect(try await app.sendJSON(.GET, "/api/users/me", [:], bearer: value).status == .ok)
            }
        }
    }

    @Test(.sqliteOnly) func bearerTokensAreStoredOnlyAsHashes() async throws {
        let directory = TestApp.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (value, databasePath) = try await TestApp.with(directory: directory) { app in
            let signIn = try await app.sendJSON(.POST, "/api/users/siwa", ["token": try app.identityToken()])
            return (try #require(try signIn.json()["value"] as? String), app.databasePath)
        }
        let database = try Data(contentsOf: URL(fileURLWithPath: databasePath))
            + ((try? Data(contentsOf: URL(fileURLWithPath: databasePath + "-wal"))) ?? Data())
        #expect(database.range(of: Data(value.utf8)) == nil)
    }

    @Test func deleteAccountRemovesUserAndTokens() async throws {
        try await TestApp.with { app in
            let signIn = try await app.sendJSON(.POST, "/api/users/siwa", ["token": try app.identityToken()])
            let value = try #require(try signIn.json()["value"] as? String)
            #expect(try await app.sendJSON(.DELETE, "/api/users/me", [:], bearer: value).status == .noContent)
            #expect(try await app.count("users") == 0)
            #expect(try await app.count("tokens") == 0)
            #expect(try await app.sendJSON(.GET, "/api/users/me", [:], bearer: value).status == .unauthorized)
        }
    }
}

/// Length checks of base64url values without trusting the server's own decoder.
enum Base64URLCheck {
    static func decodedCount(_ value: String) -> Int? {
        var base64 = value.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)?.count
    }
}

extension APISignInTests {
    /// The same new Apple account signing in many times at once makes one user, and every sign-in gets a bearer
    /// token of that user: on SQLite the writes run one after another, on PostgreSQL the unique `siwa_identifier`
    /// turns every insert but one into an update (this suite runs on both engines).
    @Test func aNewAccountSigningInManyTimesAtOnceMakesOneUser() async throws {
        try await TestApp.with { app in
            let token = try app.identityToken(subject: "001.at.once", email: "once@example.com")
            let userIDs = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<16 {
                    group.addTask {
                        let response = try await app.sendJSON(.POST, "/api/users/siwa", ["token": token])
                        guard response.status == .ok else { return nil }
                        return (try response.json()["user"] as? [String: Any])?["id"] as? String
                    }
                }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(userIDs.count == 16 && userIDs.allSatisfy { $0 != nil })
            #expect(Set(userIDs.compactMap { $0 }).count == 1)
            let users = try await app.count("users")
            let tokens = try await app.count("tokens")
            #expect(users == 1 && tokens == 16)
        }
    }
}
