import CryptoCore
import FakeApple
import Foundation
import HTTPCore
import Testing
@testable import App

/// The stand-in holds the relying party to Apple's rules where a looser stand-in would let the server pass locally
/// and fail against Apple ("Request an authorization to the Sign in with Apple server", "Generate and validate
/// tokens", "Revoke tokens"): the response types, the scopes, the user's Cancel, and form bodies only.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct FakeAppleAuthorizeTests {
    /// The consent page's post, with `fields` in place of the defaults they name.
    private func authorize(_ app: TestApp, _ fields: [(String, String)]) async throws -> HTTPClientResponse {
        let defaults = [
            ("client_id", TestApp.webClientID), ("redirect_uri", "http://127.0.0.1/cb"), ("response_mode", "form_post"),
            ("state", "s1"), ("name", "Jane Scoped"), ("email", "scoped@example.com"),
        ]
        let form = TestApp.formEncode(defaults.filter { field in !fields.contains { $0.0 == field.0 } } + fields)
        return try await app.client.send(HTTPClientRequest(
            method: .POST, url: app.apple.baseURL + "/auth/authorize",
            headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array(form.utf8)
        ))
    }

    /// Given the Services IDs it knows (`siwa dev` gives its own, `siwa fake-apple --web-client`), the stand-in refuses
    /// another client id (`invalid_client`) and a return URL the Services ID does not list (`invalid_request`), on the
    /// page and on its post, and posts nothing there, as Apple does. Found by a black-box review: it took any, so a
    /// wrong `SIWA_REDIRECT_URL` worked locally.
    @Test func onlyKnownServicesIDsAndTheirReturnURLsAreTaken() async throws {
        let keys = try FakeAppleKeys(privateKey: try RSAPrivateKey.generate(bits: 2048))
        let stand = try FakeAppleServer(port: 0, keys: keys,
                                        webClients: ["com.example.web": ["https://example.com/login/siwa/callback"]])
        try stand.start()
        let client = HTTPClient()
        let returnURL = "https://example.com/login/siwa/callback"
        func query(_ clientID: String, _ returnURL: String) -> String {
            let encoded = returnURL.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            return "client_id=\(clientID)&redirect_uri=\(encoded)&response_type=code&response_mode=form_post&state=s1"
        }
        let unknown = try await client.send(HTTPClientRequest(
            url: stand.baseURL + "/auth/authorize?" + query("com.other.web", returnURL)))
        #expect(unknown.status == .badRequest)
        #expect(unknown.text.contains("invalid_client"), "\(unknown.text)")
        let elsewhere = try await client.send(HTTPClientRequest(
            url: stand.baseURL + "/auth/authorize?" + query("com.example.web", "https://evil.example/cb")))
        #expect(elsewhere.status == .badRequest)
        #expect(elsewhere.text.contains("invalid_request") && elsewhere.text.contains("Invalid web redirect url."))
        let known = try await client.send(HTTPClientRequest(
            url: stand.baseURL + "/auth/authorize?" + query("com.example.web", returnURL)))
        #expect(known.status == .ok)
        let post = try await client.send(HTTPClientRequest(
            method: .POST, url: stand.baseURL + "/auth/authorize",
            headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Array((query("com.example.web", "https://evil.example/cb") + "&email=jane%40example.com").utf8)))
        #expect(post.status == .badRequest)
        #expect(!post.text.contains("evil.example") && !post.text.contains("name=\"code\""), "nothing posted there")
        await stand.shutdown()
    }

    /// An identity token alone, no response type, or another one is refused, on the page and on its post.
    @Test(arguments: [nil, "id_token", "token", "code token", ""])
    func responseTypesAppleDoesNotOfferAreRefused(_ responseType: String?) async throws {
        try await TestApp.with { app in
            let fields = responseType.map { [("response_type", $0)] } ?? []
            let post = try await authorize(app, fields + [("scope", "name email")])
            #expect(post.status == .badRequest)
            #expect(post.text.contains("unsupported_response_type"))
            let encoded = responseType?.addingPercentEncoding(withAllowedCharacters: .alphanumerics)
            let query = "client_id=x&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcb&response_mode=form_post"
                + (encoded.map { "&response_type=" + $0 } ?? "")
            let page = try await app.client.send(HTTPClientRequest(url: app.apple.baseURL + "/auth/authorize?" + query))
            #expect(page.status == .badRequest)
        }
    }

    /// `code` alone posts no identity token; `user` carries only the scopes asked for, and is left out with none.
    @Test(arguments: [
        ("code", "name email", ["code", "state", "user"], ["name", "email"]),
        ("code id_token", "name", ["code", "id_token", "state", "user"], ["name"]),
        ("id_token code", "email", ["code", "id_token", "state", "user"], ["email"]),
        ("code id_token", "", ["code", "id_token", "state"], []),
    ])
    func theAnswerHoldsWhatWasAskedFor(responseType: String, scope: String, fields: [String],
                                       userMembers: [String]) async throws {
        try await TestApp.with { app in
            let post = try await authorize(app, [("response_type", responseType), ("scope", scope)])
            #expect(post.status == .ok)
            let posted = HiddenFields.parse(post.text)
            #expect(posted.map(\.0).sorted() == fields.sorted())
            if let user = posted.first(where: { $0.0 == "user" })?.1 {
                let members = try #require(try JSONSerialization.jsonObject(with: Data(user.utf8)) as? [String: Any])
                #expect(members.keys.sorted() == userMembers.sorted())
            }
        }
    }

    /// `query` and `fragment` come back as Apple sends them: a redirect with the fields in the redirect URI's query
    /// or fragment, not a post. Found by a review: both were form posts, so a callback written against the stand-in
    /// never received Apple's GET.
    @Test(arguments: [("query", "http://127.0.0.1/cb?x=1&code="), ("fragment", "http://127.0.0.1/cb?x=1#code=")])
    func queryAndFragmentAreRedirects(_ mode: String, _ prefix: String) async throws {
        try await TestApp.with { app in
            let answer = try await authorize(app, [("response_type", "code"), ("response_mode", mode),
                                                   ("redirect_uri", "http://127.0.0.1/cb?x=1"), ("state", "s 1&")])
            #expect(answer.status == .seeOther)
            let location = try #require(answer.headers["Location"])
            #expect(location.hasPrefix(prefix), "\(location)")
            #expect(location.hasSuffix("&state=s%201%26"), "\(location)")
        }
    }

    /// A response mode Apple does not know, or `query` with an identity token, is Apple's `invalid_request`.
    @Test(arguments: [("code", "bogus"), ("code id_token", "query")])
    func responseModesAppleRefusesAreRefused(_ responseType: String, _ mode: String) async throws {
        try await TestApp.with { app in
            let answer = try await authorize(app, [("response_type", responseType), ("response_mode", mode)])
            #expect(answer.status == .badRequest)
            #expect(answer.text.contains("invalid_request"), "\(answer.text)")
        }
    }

    /// The identity token carries the address only when the authorization asked for `email`, as Apple's does.
    /// Found by a review: it always did, and a page without the scope signed new users up here only.
    @Test(arguments: [("name email", true), ("name", false), ("", false)])
    func theIdentityTokenCarriesTheEmailOnlyForTheEmailScope(_ scope: String, _ carries: Bool) async throws {
        try await TestApp.with { app in
            let post = try await authorize(app, [("response_type", "code id_token"), ("scope", scope)])
            let token = try #require(HiddenFields.parse(post.text).first { $0.0 == "id_token" }?.1)
            let payload = try #require(Base64URL.decode(String(token.split(separator: ".")[1])))
            let claims = try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
            #expect((claims["email"] != nil) == carries, "\(scope): \(claims.keys.sorted())")
        }
    }

    /// Cancel posts Apple's `error` and the `state` back (or hands them to the opener), and the server's callback
    /// takes the user back to the login page saying so.
    @Test func cancelPostsTheErrorBack() async throws {
        try await TestApp.with { app in
            let page = try await app.client.send(HTTPClientRequest(url: app.apple.baseURL
                + "/auth/authorize?client_id=x&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcb&response_type=code"))
            #expect(page.text.contains(#"name="cancel""#) && page.text.contains("formnovalidate"))
            let cancelled = try await authorize(app, [("response_type", "code id_token"), ("cancel", "1")])
            #expect(cancelled.status == .ok)
            let posted = HiddenFields.parse(cancelled.text)
            #expect(posted.map(\.0) == ["error", "state"])
            #expect(posted.first?.1 == "user_cancelled_authorize")
            let popup = try await authorize(app, [("response_type", "code id_token"), ("cancel", "1"),
                                                  ("response_mode", "web_message")])
            let result = try #require(try FakeAppleWebMessageTests.postedResult(popup.text))
            #expect(result["error"] as? String == "user_cancelled_authorize")
            #expect(result["authorization"] == nil)

            let login = try await app.send(.GET, "/login")
            let state = try #require(login.cookieValue("SIWA_STATE"))
            let back = try await app.sendForm("/login/siwa/callback",
                                              [("state", state), ("error", "user_cancelled_authorize")],
                                              cookies: ["SIWA_STATE": state])
            #expect(back.status == .seeOther)
            #expect(back.headers["Location"]?.hasPrefix("/login?") == true)
        }
    }

    /// Apple's token and revocation endpoints take form bodies only: JSON is `invalid_request`.
    @Test(arguments: ["/auth/token", "/auth/revoke"]) func jsonBodiesAreRefused(_ path: String) async throws {
        try await TestApp.with { app in
            let json = #"{"client_id":"x","client_secret":"y","grant_type":"authorization_code","code":"c","token":"t"}"#
            let response = try await app.client.send(HTTPClientRequest(
                method: .POST, url: app.apple.baseURL + path, headers: ["Content-Type": "application/json"],
                body: Array(json.utf8)))
            #expect(response.status == .badRequest)
            #expect(try response.json()["error"] as? String == "invalid_request")
        }
    }

    /// Revoking a refresh token or an access token ends the user's authorization of that client, every refresh token
    /// of it included, as Apple's does ("Revoke tokens"); another client's stays. Found by a review: only the one
    /// refresh token ended, and an access token ended nothing.
    @Test(arguments: ["refresh_token", "access_token"])
    func aRevocationEndsTheUsersAuthorizationOfThatClient(_ kind: String) async throws {
        try await TestApp.with { app in
            func post(_ path: String, _ fields: [(String, String)], clientID: String = TestApp.iosClientID) async throws
                -> HTTPClientResponse {
                try await app.client.send(HTTPClientRequest(
                    method: .POST, url: app.apple.baseURL + path,
                    headers: ["Content-Type": "application/x-www-form-urlencoded"],
                    body: Array(TestApp.formEncode([("client_id", clientID), ("client_secret",
                        try await ClientSecretFixture.secret(app, clientID: clientID))] + fields).utf8)))
            }
            func exchange(clientID: String) async throws -> (refresh: String, access: String) {
                let issued = try await app.apple.issueAuthorizationCode(clientID: clientID, subject: "001.revoke",
                                                                        email: "revoke@example.com")
                let answer = try await post("/auth/token", [("grant_type", "authorization_code"),
                                                            ("code", issued.code)], clientID: clientID).json()
                return (try #require(answer["refresh_token"] as? String),
                        try #require(answer["access_token"] as? String))
            }
            func refreshes(_ token: String, clientID: String = TestApp.iosClientID) async throws -> Bool {
                try await post("/auth/token", [("grant_type", "refresh_token"), ("refresh_token", token)],
                               clientID: clientID).status == .ok
            }
            let first = try await exchange(clientID: TestApp.iosClientID)
            let second = try await exchange(clientID: TestApp.iosClientID)
            let other = try await exchange(clientID: TestApp.webClientID)
            let firstBefore = try await refreshes(first.refresh), secondBefore = try await refreshes(second.refresh)
            #expect(firstBefore && secondBefore)
            let token = kind == "refresh_token" ? second.refresh : second.access
            #expect(try await post("/auth/revoke", [("token", token), ("token_type_hint", kind)]).status == .ok)
            let firstWorks = try await refreshes(first.refresh), secondWorks = try await refreshes(second.refresh)
            #expect(!firstWorks && !secondWorks)
            let otherWorks = try await refreshes(other.refresh, clientID: TestApp.webClientID)
            #expect(otherWorks, "another client's grant stays")
        }
    }

    /// An app's identity token says whether the user seems real, as Apple's do on iOS 14 and later.
    @Test func anAppsTokenCarriesRealUserStatus() async throws {
        try await TestApp.with { app in
            let form = TestApp.formEncode([("client_id", TestApp.iosClientID), ("email", "real@example.com")])
            let credential = try await app.client.send(HTTPClientRequest(
                method: .POST, url: app.apple.baseURL + "/dev/app-credential",
                headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array(form.utf8))).json()
            let token = try #require(credential["identityToken"] as? String)
            let payload = try #require(token.split(separator: ".").dropFirst().first)
            let bytes = try #require(Base64URL.decode(String(payload)))
            let claims = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            #expect(claims["real_user_status"] as? Int == 2)
        }
    }
}
