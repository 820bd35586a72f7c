import Foundation
import HTTPCore
import Storage
import Testing
@testable import App

/// `POST /login/siwa/popup`: the popup's result, with exactly the handle step's checks, answered in JSON.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct PopupSignInTests {
    private func expectError(_ response: HTTPClientResponse, _ status: HTTPStatus, _ app: TestApp,
                             sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(response.status == status, sourceLocation: sourceLocation)
        #expect(response.headers["Content-Type"]?.hasPrefix("application/json") == true, sourceLocation: sourceLocation)
        #expect(try response.json()["error"] as? Bool == true, sourceLocation: sourceLocation)
        #expect(try response.json()["reason"] as? String != nil, sourceLocation: sourceLocation)
        #expect(response.setCookies["session"] == nil, sourceLocation: sourceLocation)
        #expect(try await app.count("sessions") == 0, sourceLocation: sourceLocation)
    }

    /// 200 `{"redirect": "/"}`, the session cookie, `SIWA_STATE` cleared, the name from Apple's `user` object, and
    /// the user id in the session as the API writes it (lower case).
    @Test func aBoundResultSignsInWithASession() async throws {
        try await TestApp.with { app in
            let state = try #require(try await app.send(.GET, "/login").cookieValue("SIWA_STATE"))
            let user: [String: Any] = ["name": ["firstName": "Pop", "lastName": "<Up>"], "email": "ignored@example.com"]
            let answer = try await app.popup(try app.popupResult(state: state, subject: "001.popup", user: user),
                                             state: state)
            #expect(answer.status == .ok)
            #expect(try answer.json()["redirect"] as? String == "/")
            #expect(answer.setCookies["SIWA_STATE"]?.hasPrefix("SIWA_STATE=; Max-Age=0; ") == true)
            let cookie = try #require(answer.setCookies["session"])
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"))
            let session = try #require(answer.cookieValue("session"))
            let home = try await app.send(.GET, "/", headers: ["Cookie": "session=\(session)"])
            #expect(home.text.contains("Pop &lt;Up&gt;"))
            #expect(home.text.contains("popup@example.com"), "the email is the token's")
            let stored = try #require(try await app.server.services.users.find(siwaIdentifier: "001.popup"))
            let record = try await app.server.services.sessions.load(id: session)
            #expect(record?.data["userID"] == stored.id.text(uppercase: false))
        }
    }

    /// Found by an audit: `user` as the JSON string Apple's `form_post` carries (a page that passes it on as it
    /// is) was a 400, and the sign-in failed on a field that only carries the name.
    @Test func theUserMayBeTheFormPostsJSONString() async throws {
        try await TestApp.with { app in
            let state = try TestApp.newState()
            var result = try app.popupResult(state: state, subject: "001.string")
            result["user"] = #"{"name":{"firstName":"Str","lastName":"Ing"},"email":"ignored@example.com"}"#
            let answer = try await app.popup(result, state: state)
            #expect(answer.status == .ok)
            let stored = try #require(try await app.server.services.users.find(siwaIdentifier: "001.string"))
            #expect(stored.name == "Str Ing")
            #expect(stored.email != "ignored@example.com")
            let other = try TestApp.newState()
            let number = try await app.popup(["id_token": try app.webToken(state: other), "state": other, "user": 7],
                                             state: other)
            #expect(number.status == .badRequest)
            #expect(try number.json()["reason"] as? String == "Field 'user' must be an object or the JSON string of one")
            #expect(try await app.count("sessions") == 1)
        }
    }

    @Test func aSecondUseOfTheSameResultIs401() async throws {
        try await TestApp.with { app in
            let state = try TestApp.newState()
            let result = try app.popupResult(state: state, subject: "001.twice")
            #expect(try await app.popup(result, state: state).status == .ok)
            let replay = try await app.popup(result, state: state)
            #expect(replay.status == .unauthorized)
            #expect(replay.setCookies["session"] == nil)
            #expect(try await app.count("sessions") == 1)
        }
    }

    @Test func bindingAndVerificationFailuresAre401() async throws {
        try await TestApp.with { app in
            let state = try TestApp.newState()
            let bound = try app.popupResult(state: state, subject: "001.bind")
            try await expectError(try await app.popup(bound, state: nil), .unauthorized, app)
            try await expectError(try await app.popup(bound, state: state + "x"), .unauthorized, app)
            var otherState = bound
            otherState["state"] = try TestApp.newState()
            try await expectError(try await app.popup(otherState, state: otherState["state"] as? String), .unauthorized, app)
            var emptyState = bound
            emptyState["state"] = ""
            try await expectError(try await app.popup(emptyState, state: ""), .unauthorized, app)
            let appAudience = try app.identityToken(nonce: TestApp.nonce(forState: state))
            try await expectError(try await app.popup(["id_token": appAudience, "state": state], state: state),
                                  .unauthorized, app)
            try await expectError(try await app.popup(["id_token": "not.a.token", "state": state], state: state),
                                  .unauthorized, app)
            #expect(try await app.count("users") == 0)
        }
    }

    @Test func malformedBodiesAre400AndOtherMediaTypes415() async throws {
        try await TestApp.with { app in
            let state = try TestApp.newState()
            let token = try app.webToken(state: state)
            for body in [["state": state], ["id_token": token], ["id_token": "", "state": state],
                         ["id_token": token, "state": state, "user": "not an object"],
                         ["id_token": 7, "state": state]] as [[String: Any]] {
                try await expectError(try await app.popup(body, state: state), .badRequest, app)
            }
            let broken = try await app.send(.POST, "/login/siwa/popup", headers: [
                "Content-Type": "application/json", "Cookie": "SIWA_STATE=\(state)",
            ], body: Array("{\"id_token\": ".utf8))
            try await expectError(broken, .badRequest, app)
            let form = try await app.sendForm("/login/siwa/popup", [("id_token", token), ("state", state)],
                                              cookies: ["SIWA_STATE": state])
            try await expectError(form, .unsupportedMediaType, app)
            let text = try await app.popup(["id_token": token, "state": state], state: state, contentType: "text/plain")
            try await expectError(text, .unsupportedMediaType, app)
            #expect(try await app.count("used_nonces") == 0)
        }
    }

    /// With the Apple key configured the code is exchanged for the redirect URI it was issued with; Apple
    /// unreachable is 503 with Retry-After and spends nothing, so the same result signs in once Apple is back.
    @Test func theCodeIsExchangedAndAnOutageIs503() async throws {
        try await TestApp.with { app in
            let state = try TestApp.newState()
            let issued = try await app.webCode(state: state, subject: "001.code", email: "code@example.com")
            let body: [String: Any] = ["id_token": issued.idToken, "state": state, "code": issued.code]
            await app.apple.simulateOutage(true)
            let refused = try await app.popup(body, state: state)
            try await expectError(refused, .serviceUnavailable, app)
            #expect(refused.headers["Retry-After"] == "\(SignInFailure.appleRetryAfterSeconds)")
            #expect(try await app.count("used_nonces") == 0)
            await app.apple.simulateOutage(false)
            #expect(try await app.popup(body, state: state).status == .ok)
            #expect(try await app.count("apple_tokens") == 1)
        }
    }

    @Test func theRouteIsThereInRedirectModeAnd503WhenTheWebFlowIsOff() async throws {
        try await TestApp.with(configure: { $0.webMode = .redirect }) { app in
            let state = try TestApp.newState()
            #expect(try await app.popup(try app.popupResult(state: state, subject: "001.r"), state: state).status == .ok)
        }
        try await TestApp.with(configure: { $0.websiteClientID = nil; $0.redirectURL = nil }) { app in
            let response = try await app.popup(["id_token": "x", "state": "s"], state: "s")
            try await expectError(response, .serviceUnavailable, app)
        }
    }
}
