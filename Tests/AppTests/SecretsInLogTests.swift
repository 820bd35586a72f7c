@testable import FakeApple
import Foundation
import Glibc
import HTTPCore
import TestSupport
import Testing
@testable import App

/// A full sign-in of both kinds (API with a code exchange, web flow with state and session), at `trace`, with
/// Apple's traffic recorded by a proxy: no secret that passed through the server appears in its log.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct SecretsInLogTests {
    @Test func noTokenCodeStateSessionOrSecretIsEverLogged() async throws {
        let log = LogCapture()
        var proxy: AppleProxy?
        try await TestApp.with(logger: log.logger(), configure: { configuration in
            let port = Int(configuration.appleBaseURL.split(separator: ":").last ?? "") ?? 0
            do {
                proxy = try AppleProxy(upstreamPort: port)
            } catch {
                Issue.record("AppleProxy could not start: \(error)")
            }
            configuration.appleBaseURL = proxy?.baseURL ?? configuration.appleBaseURL
        }) { app in
            let apple = try #require(proxy)
            var secrets: [(String, String)] = []

            // API: identity token + authorization code, then /me, a replayed code, logout, and account deletion.
            let ios = try await app.apple.issueAuthorizationCode(clientID: TestApp.iosClientID, subject: "001.secret.ios",
                                                                 email: "ios@example.com")
            let signIn = try await app.sendJSON(.POST, "/api/users/siwa", [
                "token": ios.idToken, "authorizationCode": ios.code, "name": "Jane Secret",
            ])
            #expect(signIn.status == .ok, "\(signIn.text)")
            let bearer = try #require(try signIn.json()["value"] as? String)
            secrets += [("bearer", bearer), ("identity token", ios.idToken), ("authorization code", ios.code)]
            #expect(try await app.sendJSON(.GET, "/api/users/me", [:], bearer: bearer).status == .ok)
            let replay = try await app.sendJSON(.POST, "/api/users/siwa", ["token": ios.idToken, "authorizationCode": ios.code])
            #expect(replay.status == .badRequest, "a reused code is refused (and logged)")
            let second = try await app.sendJSON(.POST, "/api/users/siwa", ["token": ios.idToken])
            let secondBearer = try #require(try second.json()["value"] as? String)
            secrets.append(("second bearer", secondBearer))
            #expect(try await app.sendJSON(.POST, "/api/users/logout", [:], bearer: secondBearer).status == .noContent)
            #expect(try await app.sendJSON(.GET, "/api/users/me", [:], bearer: "not-\(bearer)").status == .unauthorized)
            secrets.append(("unknown bearer", "not-\(bearer)"))
            // A client that puts a credential in the path by mistake: found by an audit, the 404's log line held it.
            let pathToken = try app.identityToken(subject: "001.secret.path")
            #expect(try await app.send(.GET, "/api/users/me/\(pathToken)").status == .notFound)
            #expect(try await app.send(.GET, "/nope/\(bearer)x").status == .notFound)
            secrets += [("identity token in a path", pathToken), ("bearer in a path", bearer + "x")]

            // Web: /login, Apple's form_post with a code, the hand-off, the session, logout.
            let login = try await app.send(.GET, "/login")
            let state = try #require(login.cookieValue("SIWA_STATE"))
            let redirect = try #require(app.server.configuration.redirectURL)
            let web = try await app.apple.issueAuthorizationCode(clientID: TestApp.webClientID, redirectURI: redirect,
                                                                 subject: "001.secret.web", email: "web@example.com",
                                                                 nonce: TestApp.nonce(forState: state))
            let callback = try await app.sendForm("/login/siwa/callback", [
                ("state", state), ("code", web.code), ("id_token", web.idToken),
                ("user", #"{"name":{"firstName":"Jane","lastName":"Web"},"email":"web@example.com"}"#),
            ], cookies: ["SIWA_STATE": state])
            #expect(callback.status == .ok)
            let handle = try await app.handle([
                ("token", web.idToken), ("code", web.code), ("email", "web@example.com"), ("firstName", "Jane"),
                ("lastName", "Web"),
            ], state: state)
            #expect(handle.status == .seeOther)
            let session = try #require(handle.cookieValue("session"))
            #expect(try await app.send(.GET, "/", headers: ["Cookie": "session=\(session)"]).status == .ok)
            #expect(try await app.sendForm("/logout", [], cookies: ["session": session]).status == .seeOther)
            secrets += [("state", state), ("web identity token", web.idToken), ("web authorization code", web.code),
                        ("session id", session)]

            #expect(try await app.sendJSON(.DELETE, "/api/users/me", [:], bearer: bearer).status == .noContent)

            secrets += Self.appleSecrets(apple)
            #expect(log.text.contains("user created"), "the log is the server's, at trace level")
            Self.expectNone(of: secrets, in: log.text)
        }
    }

    /// The same on the real `siwa serve` with `LOG_LEVEL` at `debug` and `trace`: everything it prints is checked.
    @Test(arguments: ["debug", "trace"])
    func theRealServerPrintsNoSecretAtAnyLevel(level: String) async throws {
        try await SpawnedApp.with { app in
            let proxy = try AppleProxy(upstreamPort: app.apple.localPort)
            let secrets = try DevSecrets.loadOrCreate(besides: app.directory.appendingPathComponent("apple.pem").path)
            let webClientID = "com.example.til.web", redirect = "http://127.0.0.1/login/siwa/callback"
            let server = try await app.launch([
                "LOG_LEVEL": level, "APPLE_BASE_URL": proxy.baseURL, "WEBSITE_APPLICATION_IDENTIFIER": webClientID,
                "SIWA_REDIRECT_URL": redirect, "APPLE_TEAM_ID": DevSecrets.teamID, "APPLE_KEY_ID": DevSecrets.keyID,
                "APPLE_PRIVATE_KEY_PATH": secrets.clientKeyPath,
                "SIWA_ENCRYPTION_KEY": (0..<32).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max)) }.joined(),
            ])
            func send(_ method: HTTPMethod, _ path: String, _ headers: HTTPHeaders = [:], _ body: String = "") async throws
                -> HTTPClientResponse
            {
                try await app.client.send(HTTPClientRequest(method: method, url: app.baseURL + path, headers: headers,
                                                            body: Array(body.utf8)))
            }
            var found: [(String, String)] = []

            let ios = try await app.apple.issueAuthorizationCode(clientID: SpawnedApp.clientID, subject: "001.spawned",
                                                                 email: "s@example.com")
            let signIn = try await send(.POST, "/api/users/siwa", ["Content-Type": "application/json"],
                                        #"{"token":"\#(ios.idToken)","authorizationCode":"\#(ios.code)"}"#)
            #expect(signIn.status == .ok)
            let bearer = try #require(try signIn.json()["value"] as? String)
            #expect(try await app.me(bearer: bearer).status == .ok)
            found += [("bearer", bearer), ("identity token", ios.idToken), ("authorization code", ios.code)]

            let login = try await send(.GET, "/login")
            let state = try #require(login.cookieValue("SIWA_STATE"))
            let web = try await app.apple.issueAuthorizationCode(clientID: webClientID, redirectURI: redirect,
                                                                 subject: "001.spawned.web", email: "w@example.com",
                                                                 nonce: TestApp.nonce(forState: state))
            let form: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded", "Cookie": "SIWA_STATE=\(state)"]
            let callback = try await send(.POST, "/login/siwa/callback",
                                          ["Content-Type": "application/x-www-form-urlencoded", "Cookie": "SIWA_STATE=\(state)"],
                                          TestApp.formEncode([("state", state), ("code", web.code), ("id_token", web.idToken)]))
            #expect(callback.status == .ok)
            let handle = try await send(.POST, "/login/siwa/handle", form,
                                        TestApp.formEncode([("token", web.idToken), ("code", web.code)]))
            #expect(handle.status == .seeOther)
            let session = try #require(handle.cookieValue("session"))
            #expect(try await send(.GET, "/", ["Cookie": "session=\(session)"]).status == .ok)
            found += [("state", state), ("web identity token", web.idToken), ("web code", web.code), ("session id", session)]
            let delete = try await send(.DELETE, "/api/users/me", ["Authorization": "Bearer \(bearer)"])
            #expect(delete.status == .noContent)

            await server.terminate()
            found += Self.appleSecrets(proxy)
            #expect(server.output.contains("user created") && server.output.contains("siwa listening"), "\(server.output.suffix(500))")
            Self.expectNone(of: found, in: server.output)
        }
    }

    /// What Apple's endpoints saw and answered through `proxy`: client secrets, refresh and access tokens, id_tokens.
    static func appleSecrets(_ proxy: AppleProxy) -> [(String, String)] {
        let exchanges = proxy.exchanges.filter { !$0.request.hasPrefix("GET /auth/keys") }
        #expect(exchanges.count >= 3, "two code exchanges and a revocation went through the proxy")
        var secrets: [(String, String)] = []
        for exchange in exchanges {
            for secret in values(named: "client_secret", in: exchange.request, separators: "&") {
                secrets.append(("client secret", secret))
            }
            for name in ["refresh_token", "access_token", "id_token"] {
                for value in values(named: "\"\(name)\":\"", in: exchange.response, separators: "\"") {
                    secrets.append((name, value))
                }
            }
        }
        for name in ["client secret", "refresh_token", "access_token"] {
            #expect(secrets.contains { $0.0 == name }, "\(name) seen at the proxy")
        }
        return secrets
    }

    /// No secret, nor the payload or signature of a JWT among them, appears in `text`.
    static func expectNone(of secrets: [(String, String)], in text: String) {
        for (name, value) in secrets where value.count >= 8 {
            #expect(!text.contains(value), "\(name) appears in the log")
            let parts = value.split(separator: ".")
            if parts.count == 3 {
                #expect(!text.contains(parts[2]), "the signature of the \(name) appears in the log")
                #expect(!text.contains(parts[1]), "the payload of the \(name) appears in the log")
            }
        }
    }

    /// Every value after `name` (`name=` for forms, `"name":"` for JSON) up to the next separator.
    static func values(named name: String, in text: String, separators: Character) -> [String] {
        let key = name.hasSuffix("\"") ? name : name + "="
        return text.components(separatedBy: key).dropFirst().map { String($0.prefix { $0 != separators && $0 != "\r" }) }
    }

    /// A start names the database it uses, never the password in `DATABASE_URL`. Found by a review: nothing in the
    /// log said which database an instance served from.
    @Test func theStartNamesTheDatabaseButNotItsPassword() async throws {
        try await SpawnedApp.with { app in
            let sqlite = try await app.launch()
            #expect(sqlite.output.contains("database: SQLite at \(app.databasePath)"), "\(sqlite.output.suffix(500))")
            #expect(await sqlite.terminate() == 0)
        }
        let cluster = try await PostgresCluster.sharedCluster()
        let url = try await cluster.newDatabase()
        let name = String(url.split(separator: "/").last ?? "")
        let password = "pw-\(UUID().uuidString)"
        try await SpawnedApp.with { app in
            let withPassword = url.replacingOccurrences(of: "postgres@", with: "postgres:\(password)@")
            let postgres = try await app.launch(["DATABASE_URL": withPassword])
            #expect(postgres.output.contains("database: PostgreSQL at 127.0.0.1:\(cluster.port)/\(name)"),
                    "\(postgres.output.suffix(500))")
            #expect(!postgres.output.contains(password))
        }
    }
}
