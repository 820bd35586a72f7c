import Foundation
import HTTPCore
import Testing
@testable import App

/// A full sign-in of both kinds (API with a code exchange, web flow with state and session), at `trace`, with
/// Apple's traffic recorded by a proxy: no secret that passed through the server appears in its log.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct SecretsInLogTests {
    @Test func noTokenCodeStateSessionOrSecretIsEverLogged() async throws {
        let log = LogCapture()
        var proxy: AppleProxy?
        let app = try await TestApp.start(logger: log.logger()) { configuration in
            let port = Int(configuration.appleBaseURL.split(separator: ":").last ?? "") ?? 0
            proxy = try? AppleProxy(upstreamPort: port)
            configuration.appleBaseURL = proxy?.baseURL ?? configuration.appleBaseURL
        }
        let apple = try #require(proxy)
        var secrets: [(String, String)] = []

        // API: identity token + authorization code, then /me, a replayed code, logout, and account deletion.
        let ios = try await app.apple.issueAuthorizationCode(clientID: TestApp.iosClientID, subject: "001.secret.ios",
                                                             email: "ios@example.com")
        let signIn = try await app.sendJSON(.POST, "/api/users/siwa", [
            "token": ios.idToken, "authorizationCode": ios.code, "name": "Jane Secret",
        ])
        #expect(signIn.status == .ok)
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

        // Web: /login, Apple's form_post with a code, the hand-off, the session, logout.
        let login = try await app.send(.GET, "/login")
        let state = try #require(login.cookieValue("SIWA_STATE"))
        let redirect = try #require(app.server.configuration.redirectURL)
        let web = try await app.apple.issueAuthorizationCode(clientID: TestApp.webClientID, redirectURI: redirect,
                                                             subject: "001.secret.web", email: "web@example.com")
        let callback = try await app.sendForm("/login/siwa/callback", [
            ("state", state), ("code", web.code), ("id_token", web.idToken),
            ("user", #"{"name":{"firstName":"Jane","lastName":"Web"},"email":"web@example.com"}"#),
        ], cookies: ["SIWA_STATE": state])
        #expect(callback.status == .ok)
        let handle = try await app.sendForm("/login/siwa/handle", [
            ("token", web.idToken), ("code", web.code), ("email", "web@example.com"), ("firstName", "Jane"),
            ("lastName", "Web"),
        ])
        #expect(handle.status == .seeOther)
        let session = try #require(handle.cookieValue("session"))
        #expect(try await app.send(.GET, "/", headers: ["Cookie": "session=\(session)"]).status == .ok)
        #expect(try await app.sendForm("/logout", [], cookies: ["session": session]).status == .seeOther)
        secrets += [("state", state), ("web identity token", web.idToken), ("web authorization code", web.code),
                    ("session id", session)]

        #expect(try await app.sendJSON(.DELETE, "/api/users/me", [:], bearer: bearer).status == .noContent)

        // What Apple's endpoints saw and answered: client secrets, refresh and access tokens, exchanged id_tokens.
        let exchanges = apple.exchanges.filter { !$0.request.hasPrefix("GET /auth/keys") }
        #expect(exchanges.count >= 3, "two code exchanges and a revocation went through the proxy")
        for exchange in exchanges {
            for secret in Self.values(named: "client_secret", in: exchange.request, separators: "&") {
                secrets.append(("client secret", secret))
            }
            for name in ["refresh_token", "access_token", "id_token"] {
                for value in Self.values(named: "\"\(name)\":\"", in: exchange.response, separators: "\"") {
                    secrets.append((name, value))
                }
            }
        }
        #expect(secrets.contains { $0.0 == "client secret" })
        #expect(secrets.contains { $0.0 == "refresh_token" })
        #expect(secrets.contains { $0.0 == "access_token" })

        let text = log.text
        #expect(text.contains("user created"), "the log is the server's, at trace level")
        for (name, value) in secrets where value.count >= 8 {
            #expect(!text.contains(value), "\(name) appears in the log")
            let parts = value.split(separator: ".")
            if parts.count == 3 {
                #expect(!text.contains(parts[2]), "the signature of the \(name) appears in the log")
                #expect(!text.contains(parts[1]), "the payload of the \(name) appears in the log")
            }
        }
        await app.stop()
    }

    /// Every value after `name` (`name=` for forms, `"name":"` for JSON) up to the next separator.
    static func values(named name: String, in text: String, separators: Character) -> [String] {
        let key = name.hasSuffix("\"") ? name : name + "="
        return text.components(separatedBy: key).dropFirst().map { String($0.prefix { $0 != separators && $0 != "\r" }) }
    }
}
