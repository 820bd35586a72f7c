import Foundation
import HTTPCore
import Testing
@testable import App

/// The web redirect flow over real sockets: /login, Apple's form_post callback, the hand-off, the session.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct WebFlowTests {
    /// GET /login and return the state the page and cookie carry.
    private func loginState(_ app: TestApp, path: String = "/login") async throws -> (state: String, page: String) {
        let page = try await app.send(.GET, path)
        #expect(page.status == .ok)
        let state = try #require(page.cookieValue("SIWA_STATE"))
        return (state, page.text)
    }

    @Test func loginPageCarriesAppleButtonAndStateCookie() async throws {
        try await TestApp.with { app in
            for path in ["/login", "/register"] {
                let page = try await app.send(.GET, path)
                #expect(page.status == .ok)
                #expect(page.headers["Content-Type"]?.hasPrefix("text/html") == true)
                let cookie = try #require(page.setCookies["SIWA_STATE"])
                let state = try #require(page.cookieValue("SIWA_STATE"))
                #expect(state.count >= 43)
                #expect(cookie == "SIWA_STATE=\(state); Max-Age=300; Path=/; HttpOnly; Secure; SameSite=None")
                #expect(page.text.contains("AppleID.auth.init"))
                #expect(page.text.contains("clientId: \"\(TestApp.webClientID)\","))
                #expect(page.text.contains("scope: \"name email\""))
                #expect(page.text.contains("redirectURI: \"http://127.0.0.1/login/siwa/callback\","))
                #expect(page.text.contains("state: \"\(state)\","))
                #expect(page.text.contains("nonce: \"\(TestApp.nonce(forState: state))\","))
                #expect(page.text.contains("&amp;nonce=\(TestApp.nonce(forState: state))"), "the no-script link asks the same")
                #expect(page.text.contains("usePopup: false"))
            }
        }
    }

    @Test func fullFlowSignsInWithASessionAndShowsTheName() async throws {
        try await TestApp.with { app in
            let (state, _) = try await loginState(app)
            let idToken = try app.webToken(state: state, subject: "001.web", email: "web@example.com")
            let user = #"{"name":{"firstName":"Jane","lastName":"<Appleseed>"},"email":"web@example.com"}"#
            let callback = try await app.sendForm("/login/siwa/callback", [
                ("state", state), ("code", "c-unused"), ("id_token", idToken), ("user", user),
            ], cookies: ["SIWA_STATE": state])
            #expect(callback.status == .ok)
            #expect(callback.text.contains("action=\"/login/siwa/handle\""))
            #expect(callback.text.contains("document.getElementById(\"siwa\").submit();"), "it posts itself")
            #expect(!callback.text.contains("Try again"))
            #expect(callback.text.contains("&lt;Appleseed&gt;"))
            #expect(!callback.text.contains("<Appleseed>"))
            #expect(callback.setCookies["SIWA_STATE"] == nil, "the state stays for the handle step")

            let handle = try await app.handle([
                ("token", idToken), ("email", "web@example.com"), ("firstName", "Jane"), ("lastName", "<Appleseed>"),
            ], state: state)
            #expect(handle.status == .seeOther)
            #expect(handle.headers["Location"] == "/")
            #expect(handle.setCookies["SIWA_STATE"]?.hasPrefix("SIWA_STATE=; Max-Age=0; ") == true)
            #expect(handle.setCookies["SIWA_STATE"]?.hasSuffix("; Path=/; HttpOnly; Secure; SameSite=None") == true)
            let sessionCookie = try #require(handle.setCookies["session"])
            #expect(sessionCookie.contains("HttpOnly"))
            #expect(sessionCookie.contains("SameSite=Lax"))
            #expect(!sessionCookie.contains("Secure"))
            let session = try #require(handle.cookieValue("session"))

            let home = try await app.send(.GET, "/", headers: ["Cookie": "session=\(session)"])
            #expect(home.status == .ok)
            #expect(home.text.contains("Jane &lt;Appleseed&gt;"))
            #expect(home.text.contains("web@example.com"))
            #expect(home.headers["Cache-Control"] == "no-store", "the page shows the user's e-mail")

            let logout = try await app.sendForm("/logout", [], cookies: ["session": session])
            #expect(logout.status == .seeOther)
            #expect(logout.setCookies["session"]?.hasSuffix("; Path=/; HttpOnly; SameSite=Lax") == true,
                    "removed with the attributes it was set with")
            let after = try await app.send(.GET, "/", headers: ["Cookie": "session=\(session)"])
            #expect(!after.text.contains("web@example.com"))
        }
    }

    @Test func callbackRefusesAMismatchedOrMissingState() async throws {
        try await TestApp.with { app in
            let (state, _) = try await loginState(app)
            let idToken = try app.identityToken(audience: TestApp.webClientID)
            let mismatched = try await app.sendForm("/login/siwa/callback", [("state", state), ("id_token", idToken)],
                                                    cookies: ["SIWA_STATE": state + "x"])
            #expect(mismatched.status == .unauthorized)
            let noCookie = try await app.sendForm("/login/siwa/callback", [("state", state), ("id_token", idToken)])
            #expect(noCookie.status == .unauthorized)
            let empty = try await app.sendForm("/login/siwa/callback", [("state", ""), ("id_token", idToken)],
                                               cookies: ["SIWA_STATE": ""])
            #expect(empty.status == .unauthorized)
            #expect(try mismatched.json()["error"] as? Bool == true)
            #expect(try mismatched.json()["reason"] as? String != nil)
        }
    }

    /// The callback's check is that the state equals the `SIWA_STATE` cookie: a state the browser's cookie carries
    /// is accepted, whoever made it, and the cookie stays for the handle step (where the token's nonce binds it).
    @Test func aStateEqualToItsCookieIsAccepted() async throws {
        try await TestApp.with { app in
            let fields = [("state", "made-up-state"), ("id_token", try app.identityToken(audience: TestApp.webClientID))]
            for _ in 0..<2 {
                let callback = try await app.sendForm("/login/siwa/callback", fields, cookies: ["SIWA_STATE": "made-up-state"])
                #expect(callback.status == .ok)
                #expect(callback.setCookies["SIWA_STATE"] == nil)
            }
        }
    }

    /// Cancelling on Apple's page (`error=user_cancelled_authorize`) goes back to the login page, which says so; an
    /// error page offers to sign in again. Found by an audit in a real browser: the page said nothing.
    @Test func aSignInCancelledAtAppleIsSaidOnTheLoginPage() async throws {
        try await TestApp.with { app in
            let (state, _) = try await loginState(app)
            let callback = try await app.sendForm("/login/siwa/callback",
                                                  [("state", state), ("error", "user_cancelled_authorize")],
                                                  cookies: ["SIWA_STATE": state])
            #expect(callback.status == .seeOther)
            #expect(callback.headers["Location"] == "/login?cancelled")
            let page = try await app.send(.GET, "/login?cancelled")
            #expect(page.text.contains("it was cancelled on Apple's page"))
            #expect(!(try await app.send(.GET, "/login")).text.contains("cancelled on Apple's page"))
            // Another of Apple's errors is not called a cancel. Found by an audit.
            let failed = try await app.sendForm("/login/siwa/callback", [("state", state), ("error", "invalid_request")],
                                                cookies: ["SIWA_STATE": state])
            #expect(failed.headers["Location"] == "/login?failed")
            let failedPage = try await app.send(.GET, "/login?failed")
            #expect(failedPage.text.contains("Apple reported an error"))
            #expect(!failedPage.text.contains("cancelled on Apple's page"))
            let refused = try await app.send(.POST, "/login/siwa/callback", headers: [
                "Content-Type": "application/x-www-form-urlencoded", "Accept": "text/html",
            ], body: Array(TestApp.formEncode([("state", "a"), ("id_token", "x")]).utf8))
            #expect(refused.status == .unauthorized)
            #expect(refused.text.contains(#"<a href="/login">Sign in again</a>"#))
            #expect(refused.text.contains("or it took longer than 5 minutes"))
        }
    }

    /// Errors of the web routes have the API's JSON shape, unless the client asks for HTML first (a browser).
    /// When Apple cannot serve the code exchange, a browser's hand-off answers 503 with a page that posts the same
    /// form again (no script submits it), so the name Apple sends only once is not lost: once Apple is back, the
    /// same post signs in with it. A JSON client gets the JSON error. Found by a black-box review: the page offered
    /// only "Sign in again", a new authorization without the name.
    /// The hand-off's form as a browser posts it: form-encoded, with the state cookie, asking for HTML first.
    private func postAsBrowser(_ app: TestApp, _ fields: [(String, String)], state: String) async throws
        -> HTTPClientResponse
    {
        try await app.send(.POST, "/login/siwa/handle", headers: [
            "Content-Type": "application/x-www-form-urlencoded", "Cookie": "SIWA_STATE=\(state)",
            "Accept": APIErrorFormatTests.browser,
        ], body: Array(TestApp.formEncode(fields).utf8))
    }

    @Test func aHandOffAppleCannotServeOffersTheSamePostAgainWithTheName() async throws {
        try await TestApp.with { app in
            let state = try TestApp.newState()
            let issued = try await app.webCode(state: state, subject: "001.web.retry", email: "retry@example.com")
            let fields = [("token", issued.idToken), ("code", issued.code), ("email", ""), ("firstName", "Jane"),
                          ("lastName", "<Retry>")]
            await app.apple.simulateOutage(true)
            let json = try await app.handle(fields, state: state)
            #expect(json.status == .serviceUnavailable)
            #expect(try json.json()["error"] as? Bool == true)
            let page = try await postAsBrowser(app, fields, state: state)
            #expect(page.status == .serviceUnavailable)
            #expect(page.headers["Retry-After"] == "10")
            #expect(page.headers["Content-Type"]?.hasPrefix("text/html") == true)
            #expect(page.headers["Cache-Control"] == "no-store")
            #expect(page.text.contains("action=\"/login/siwa/handle\""))
            #expect(page.text.contains("name=\"firstName\" value=\"Jane\""))
            #expect(page.text.contains("value=\"&lt;Retry&gt;\""))
            #expect(page.text.contains(">Try again</button>"))
            #expect(!page.text.contains(".submit()"), "the page does not post again by itself")
            #expect(page.setCookies["SIWA_STATE"] == nil, "the state stays for the post again")
            #expect(try await app.count("users") == 0)

            await app.apple.simulateOutage(false)
            let again = try await postAsBrowser(app, fields, state: state)
            #expect(again.status == .seeOther)
            let session = try #require(again.cookieValue("session"))
            let home = try await app.send(.GET, "/", headers: ["Cookie": "session=\(session)"])
            #expect(home.text.contains("Jane &lt;Retry&gt;"))
        }
    }

    /// After a timeout Apple may have spent the single-use code, so the page posts the identity token without it: the
    /// browser signs in with its name (no refresh token stored). Found by a black-box review: the same post again
    /// could only be refused (400, the code already used).
    @Test func aHandOffWhoseExchangeTimedOutOffersThePostAgainWithoutTheCode() async throws {
        try await TestApp.with(configure: { $0.appleTimeout = .milliseconds(300) }) { app in
            let state = try TestApp.newState()
            let issued = try await app.webCode(state: state, subject: "001.web.timeout", email: "timeout@example.com")
            let fields = [("token", issued.idToken), ("code", issued.code), ("email", ""), ("firstName", "Jane"),
                          ("lastName", "Late")]
            await app.apple.setTokenLatency(2)
            let page = try await postAsBrowser(app, fields, state: state)
            #expect(page.status == .serviceUnavailable)
            #expect(page.headers["Retry-After"] == "10")
            #expect(page.text.contains("name=\"code\" value=\"\""), "the code is left out")
            #expect(!page.text.contains(issued.code))
            #expect(page.text.contains("Apple&#39;s token service gave no usable answer; try again")
                || page.text.contains("Apple's token service gave no usable answer; try again"))
            #expect(try await app.count("users") == 0)

            await app.apple.setTokenLatency(0)
            let retried = fields.map { $0.0 == "code" ? ("code", "") : $0 }
            let again = try await postAsBrowser(app, retried, state: state)
            #expect(again.status == .seeOther)
            let session = try #require(again.cookieValue("session"))
            let home = try await app.send(.GET, "/", headers: ["Cookie": "session=\(session)"])
            #expect(home.text.contains("Jane Late"))
            #expect(try await app.count("apple_tokens") == 0)
        }
    }

    @Test func webRouteErrorsAreJSONUnlessTheClientPrefersHTML() async throws {
        try await TestApp.with { app in
            let fields = [("state", "a"), ("id_token", try app.identityToken(audience: TestApp.webClientID))]
            let json = try await app.sendForm("/login/siwa/callback", fields, cookies: ["SIWA_STATE": "b"])
            #expect(json.status == .unauthorized)
            #expect(json.headers["Content-Type"]?.hasPrefix("application/json") == true)
            #expect(try json.json()["error"] as? Bool == true)
            let browser = try await app.send(.POST, "/login/siwa/callback", headers: [
                "Content-Type": "application/x-www-form-urlencoded", "Cookie": "SIWA_STATE=b",
                "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
            ], body: Array(TestApp.formEncode(fields).utf8))
            #expect(browser.status == .unauthorized)
            #expect(browser.headers["Content-Type"]?.hasPrefix("text/html") == true)
        }
    }

    @Test func malformedUserJSONIs400() async throws {
        try await TestApp.with { app in
            let (state, _) = try await loginState(app)
            let response = try await app.sendForm("/login/siwa/callback", [
                ("state", state), ("id_token", try app.identityToken(audience: TestApp.webClientID)), ("user", "{nope"),
            ], cookies: ["SIWA_STATE": state])
            #expect(response.status == .badRequest)
        }
    }

    /// The stored email comes only from the verified token. A new user whose token has none is refused with an
    /// error page (the browser asks for HTML) and no account, whatever the form says; the token's email wins over
    /// the form's; a returning user's token without one keeps the stored address.
    @Test func handleTakesTheEmailOnlyFromTheToken() async throws {
        try await TestApp.with { app in
            let state = try TestApp.newState()
            let bare = try app.webToken(state: state, subject: "001.bare", email: nil)
            let refused = try await app.send(.POST, "/login/siwa/handle", headers: [
                "Content-Type": "application/x-www-form-urlencoded", "Cookie": "SIWA_STATE=\(state)",
                "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
            ], body: Array(TestApp.formEncode([
                ("token", bare), ("email", "ceo@victim.example"), ("firstName", "Form"), ("lastName", "User"),
            ]).utf8))
            #expect(refused.status == .badRequest)
            #expect(refused.headers["Content-Type"]?.hasPrefix("text/html") == true)
            #expect(refused.text.contains("carries no email"))
            #expect(refused.setCookies["session"] == nil)
            #expect(try await app.count("users") == 0)
            #expect(try await app.count("used_nonces") == 0, "a refused sign-in does not spend its nonce")

            let both = try await app.webSignIn(subject: "001.signed", email: "apple@example.com",
                                               extraFields: [("email", "ceo@victim.example")])
            #expect(both.status == .seeOther)
            #expect(try await app.server.services.users.find(siwaIdentifier: "001.signed")?.email == "apple@example.com")
            let returning = try await app.webSignIn(subject: "001.signed", email: nil,
                                                    extraFields: [("email", "ceo@victim.example")])
            #expect(returning.status == .seeOther)
            #expect(try await app.server.services.users.find(siwaIdentifier: "001.signed")?.email == "apple@example.com")
            #expect(try await app.count("users") == 1)
        }
    }

    @Test func handleRefusesTokensForTheAppAudienceAndWritesNothing() async throws {
        try await TestApp.with { app in
            let state = try TestApp.newState()
            let appToken = try app.identityToken(nonce: TestApp.nonce(forState: state))
            let response = try await app.handle([("token", appToken)], state: state)
            #expect(response.status == .unauthorized)
            #expect(response.setCookies["session"] == nil)
            #expect(try await app.count("users") == 0)
            let missing = try await app.sendForm("/login/siwa/handle", [])
            #expect(missing.status == .badRequest)
        }
    }

    /// An empty token is malformed input on every route that takes one: 400, as on `/api/users/siwa` and the popup's
    /// route, whatever the state cookie says.
    @Test func handleTakesAnEmptyTokenAsMalformed() async throws {
        try await TestApp.with { app in
            let state = try TestApp.newState()
            let response = try await app.handle([("token", "")], state: state)
            #expect(response.status == .badRequest)
            #expect(response.text.contains("Field 'token' must not be empty"), "\(response.text)")
            let noCookie = try await app.sendForm("/login/siwa/handle", [("token", "")])
            #expect(noCookie.status == .badRequest)
        }
    }

    @Test func webRoutesSay503WhenNotConfigured() async throws {
        try await TestApp.with(configure: { configuration in
            configuration.websiteClientID = nil
            configuration.redirectURL = nil
        }) { app in
            let login = try await app.send(.GET, "/login")
            let handle = try await app.sendForm("/login/siwa/handle", [("token", "x")])
            #expect(login.status == .serviceUnavailable)
            #expect(handle.status == .serviceUnavailable)
        }
    }

    @Test func apiSays503WhenNotConfigured() async throws {
        try await TestApp.with(configure: { configuration in configuration.iosClientIDs = [] }) { app in
            let response = try await app.sendJSON(.POST, "/api/users/siwa", ["token": "x"])
            #expect(response.status == .serviceUnavailable)
            #expect(try response.json()["error"] as? Bool == true)
        }
    }

    @Test func standInAuthorizePagePostsBackAsApple() async throws {
        try await TestApp.with { app in
            let query = "client_id=\(TestApp.webClientID)&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcb"
                + "&response_type=code%20id_token&scope=name%20email&response_mode=form_post&state=s1"
            let page = try await app.client.send(HTTPClientRequest(url: app.apple.baseURL + "/auth/authorize?" + query))
            #expect(page.status == .ok)
            #expect(page.text.contains("name=\"email\""))
            let form = TestApp.formEncode([
                ("client_id", TestApp.webClientID), ("redirect_uri", "http://127.0.0.1/cb"), ("scope", "name email"),
                ("response_type", "code id_token"), ("response_mode", "form_post"), ("state", "s1"), ("name", "Jane Appleseed"), ("email", "jane@example.com"),
            ])
            let post = { try await app.client.send(HTTPClientRequest(
                method: .POST, url: app.apple.baseURL + "/auth/authorize",
                headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array(form.utf8)
            )) }
            let first = try await post()
            #expect(first.status == .ok)
            #expect(first.text.contains("action=\"http://127.0.0.1/cb\""))
            for field in ["code", "state", "id_token", "user"] { #expect(first.text.contains("name=\"\(field)\""), "\(field)") }
            let second = try await post()
            #expect(!second.text.contains("name=\"user\""), "Apple sends user only the first time")
        }
    }
}
