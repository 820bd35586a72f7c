import AppleID
import Foundation
import HTTPCore
import Testing
@testable import App

/// The stand-in's `response_mode=web_message`: the consent page's answer hands Apple's JS result to the opener,
/// for the redirect URI's origin only, and the script served as Apple's knows `usePopup: true`.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct FakeAppleWebMessageTests {
    private func consent(_ app: TestApp, state: String) async throws -> HTTPClientResponse {
        let form = TestApp.formEncode([
            ("client_id", TestApp.webClientID), ("redirect_uri", "http://127.0.0.1:8080/login/siwa/callback"),
            ("response_type", "code id_token"), ("scope", "name email"), ("response_mode", "web_message"),
            ("state", state), ("nonce", TestApp.nonce(forState: state)), ("name", "Pop Up"), ("email", "pop@example.com"),
        ])
        return try await app.client.send(HTTPClientRequest(
            method: .POST, url: app.apple.baseURL + "/auth/authorize",
            headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array(form.utf8)
        ))
    }

    /// The page posts `{authorization: {code, id_token, state}, user?}` to `window.opener`, `user` an object the
    /// first time only, and the `id_token` carries the nonce and signs in through the popup route.
    @Test func consentPostsTheResultToTheOpener() async throws {
        try await TestApp.with { app in
            let state = try TestApp.newState()
            let first = try await consent(app, state: state)
            #expect(first.status == .ok)
            #expect(first.text.contains("window.opener.postMessage(JSON.parse("))
            #expect(first.text.contains(#", "http://127.0.0.1:8080");"#), "to the redirect URI's origin only")
            #expect(!first.text.contains("<form"), "no form_post")
            let result = try #require(try Self.postedResult(first.text))
            let authorization = try #require(result["authorization"] as? [String: Any])
            #expect(authorization["state"] as? String == state)
            #expect((authorization["code"] as? String)?.isEmpty == false)
            let user = try #require(result["user"] as? [String: Any])
            #expect((user["name"] as? [String: Any])?["firstName"] as? String == "Pop")
            let token = try #require(authorization["id_token"] as? String)
            let signedIn = try await app.popup(["id_token": token, "state": state], state: state)
            #expect(signedIn.status == .ok)
            let second = try #require(try Self.postedResult(try await consent(app, state: state).text))
            #expect(second["user"] == nil, "Apple gives user only the first time")
        }
    }

    @Test func theScriptKnowsPopupMode() async throws {
        try await TestApp.with { app in
            let script = try await app.client.send(HTTPClientRequest(url: app.apple.baseURL + AppleWebScript.path))
            #expect(script.status == .ok)
            for piece in ["config.usePopup", "window.open(url(\"web_message\")", "popup_closed_by_user",
                          "AppleIDSignInOnSuccess", "AppleIDSignInOnFailure", "event.origin !== origin",
                          "event.source !== popup", "url(\"form_post\")"] {
                #expect(script.text.contains(piece), "\(piece)")
            }
        }
    }

    /// The JSON inside `JSON.parse("…")`, its `\uXXXX` escapes undone.
    static func postedResult(_ page: String) throws -> [String: Any]? {
        guard let start = page.range(of: "JSON.parse(\""), let end = page.range(of: "\"), ", range: start.upperBound..<page.endIndex)
        else { return nil }
        let literal = "\"" + page[start.upperBound..<end.lowerBound] + "\""
        let text = try JSONSerialization.jsonObject(with: Data(literal.utf8), options: .fragmentsAllowed) as? String
        return try text.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }
}
