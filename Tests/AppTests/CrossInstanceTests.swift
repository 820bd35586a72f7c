import Foundation
import HTTPCore
import TestSupport
import Testing
@testable import App

/// Any instance answers any request: two or three servers on one PostgreSQL database, as behind a load balancer
/// with no sticky sessions. A web flow is started, called back and finished each on a different instance; a bearer
/// token and a session cookie work on every instance, and ending them on one ends them on all.
@Suite(.postgres, .serialized, .timeLimit(.minutes(2)))
struct CrossInstanceTests {
    static let redirectURL = "http://127.0.0.1/login/siwa/callback"

    /// What the stand-in's consent screen posts for the browser holding `state`: Apple's `form_post` page.
    private func authorize(_ app: TestApp, state: String, nonce: String) async throws -> HTTPClientResponse {
        let form = TestApp.formEncode([
            ("client_id", TestApp.webClientID), ("redirect_uri", Self.redirectURL), ("scope", "name email"),
            ("response_type", "code id_token"), ("response_mode", "form_post"), ("state", state), ("nonce", nonce), ("name", "Jane Across"),
            ("email", "across@example.com"),
        ])
        return try await app.client.send(HTTPClientRequest(
            method: .POST, url: app.apple.baseURL + "/auth/authorize",
            headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array(form.utf8)
        ))
    }

    @Test func aWebFlowRunsAcrossThreeInstancesAndItsSessionWorksOnEach() async throws {
        try await TestApp.instances(3) { apps in
            let (a, b, c) = (apps[0], apps[1], apps[2])
            let login = try await a.send(.GET, "/login")
            let state = try #require(login.cookieValue("SIWA_STATE"))
            let nonce = TestApp.nonce(forState: state)
            #expect(login.text.contains("nonce: \"\(nonce)\","))

            let apple = try await authorize(a, state: state, nonce: nonce)
            #expect(apple.status == .ok)
            #expect(HiddenFields.action(apple.text) == Self.redirectURL)
            let callbackFields = HiddenFields.parse(apple.text)
            #expect(Set(callbackFields.map(\.0)) == ["code", "state", "id_token", "user"])
            let callback = try await b.sendForm("/login/siwa/callback", callbackFields, cookies: ["SIWA_STATE": state])
            #expect(callback.status == .ok)
            #expect(HiddenFields.action(callback.text) == "/login/siwa/handle")

            let handle = try await c.sendForm("/login/siwa/handle", HiddenFields.parse(callback.text),
                                              cookies: ["SIWA_STATE": state])
            #expect(handle.status == .seeOther, "\(handle.text)")
            let session = try #require(handle.cookieValue("session"))
            #expect(try await a.count("apple_tokens") == 1, "instance C exchanged the code the stand-in gave A's page")
            #expect(try await a.count("used_nonces") == 1)
            for (index, app) in apps.enumerated() {
                let home = try await app.home(session: session)
                #expect(home.status == .ok)
                #expect(home.text.contains("Jane Across") && home.text.contains("across@example.com"),
                        "instance \(index)")
            }
            let replay = try await a.sendForm("/login/siwa/handle", HiddenFields.parse(callback.text),
                                              cookies: ["SIWA_STATE": state])
            #expect(replay.status == .unauthorized, "the nonce C used is spent on A too")

            #expect(try await b.sendForm("/logout", [], cookies: ["session": session]).status == .seeOther)
            for (index, app) in apps.enumerated() {
                let home = try await app.home(session: session)
                #expect(!home.text.contains("across@example.com"), "instance \(index)")
            }
            #expect(try await c.count("sessions") == 0)
        }
    }

    @Test func aBearerTokenFromOneInstanceWorksOnAnotherUntilItEnds() async throws {
        try await TestApp.instances(2) { apps in
            let (a, b) = (apps[0], apps[1])
            let token = try a.identityToken(subject: "001.cross.bearer", email: "bearer@example.com")
            let first = try await a.sendJSON(.POST, "/api/users/siwa", ["token": token, "name": "Bea Rer"])
            let second = try await a.sendJSON(.POST, "/api/users/siwa", ["token": token])
            let userID = try #require((try first.json()["user"] as? [String: Any])?["id"] as? String)
            let loggedOut = try #require(try first.json()["value"] as? String)
            let deleting = try #require(try second.json()["value"] as? String)

            let me = try await b.sendJSON(.GET, "/api/users/me", [:], bearer: loggedOut)
            #expect(me.status == .ok)
            #expect(try me.json()["id"] as? String == userID)
            #expect(try me.json()["name"] as? String == "Bea Rer")

            #expect(try await b.sendJSON(.POST, "/api/users/logout", [:], bearer: loggedOut).status == .noContent)
            #expect(try await a.sendJSON(.GET, "/api/users/me", [:], bearer: loggedOut).status == .unauthorized)
            #expect(try await a.sendJSON(.GET, "/api/users/me", [:], bearer: deleting).status == .ok)

            #expect(try await b.sendJSON(.DELETE, "/api/users/me", [:], bearer: deleting).status == .noContent)
            let refused = try await a.sendJSON(.GET, "/api/users/me", [:], bearer: deleting)
            #expect(refused.status == .unauthorized)
            #expect(try refused.json()["error"] as? Bool == true)
            #expect(try await a.count("users") == 0)
            #expect(try await a.count("tokens") == 0)
        }
    }

    /// Each instance fetches Apple's keys itself, and the last good set any instance fetched is kept in the
    /// database: an instance that cannot reach Apple at all (a closed port) verifies tokens with that set.
    @Test func anInstanceThatCannotReachAppleUsesTheKeySetAnotherKept() async throws {
        try await TestApp.instances(2, configure: { index, configuration in
            if index == 1 { configuration.appleBaseURL = "http://127.0.0.1:9" }
        }) { apps in
            let (a, b) = (apps[0], apps[1])
            let first = try await a.sendJSON(.POST, "/api/users/siwa",
                                             ["token": try a.identityToken(subject: "001.keys.a")])
            #expect(first.status == .ok)
            #expect(a.server.services.appleKeys.fetches[.ok] == 1)
            try await a.waitForKeptKeySet()
            #expect(try await a.count("jwks_cache") == 1)

            let second = try await b.sendJSON(.POST, "/api/users/siwa",
                                              ["token": try b.identityToken(subject: "001.keys.b")])
            #expect(second.status == .ok, "B verified with the set A kept: \(second.text)")
            // Waits for the fetch the sign-in began, and starts none within the refetch interval.
            await b.server.services.appleKeys.refresh()
            #expect(b.server.services.appleKeys.fetches[.ok] == 0)
            #expect(b.server.services.appleKeys.fetches[.networkError] == 1, "B tried Apple itself")
        }
    }

    /// The sign-in rate limiter's buckets are per instance (README "More than one instance"): a client that has
    /// spent its burst on one instance still gets a full burst on another, so N instances allow N times the rate.
    @Test func theSignInRateLimitIsPerInstance() async throws {
        try await TestApp.instances(2, configure: { _, configuration in
            configuration.trustProxy = true
            configuration.signInRateLimit = 1
            configuration.signInRateBurst = 2
        }) { apps async throws in
            for app in apps {
                var statuses: [HTTPStatus] = []
                for _ in 0..<3 { statuses.append(try await SignInRateLimitTests.signIn(app, from: "203.0.113.7").status) }
                #expect(statuses == [.ok, .ok, .tooManyRequests])
            }
            #expect(try await apps[0].count("users") == 4)
        }
    }
}
