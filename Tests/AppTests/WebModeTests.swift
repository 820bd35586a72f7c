import AppleID
import FakeApple
import Foundation
import HTTPCore
import Testing
import Web
@testable import App

/// `SIWA_WEB_MODE`: how the login pages run Apple's button, and the headers and script each mode needs.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct WebModeTests {
    @Test func parsesRedirectAndPopupAndDefaultsToRedirect() throws {
        #expect(try Configuration(Environment([:])).webMode == .redirect)
        #expect(try Configuration(Environment(["SIWA_WEB_MODE": "redirect"])).webMode == .redirect)
        #expect(try Configuration(Environment(["SIWA_WEB_MODE": "popup"])).webMode == .popup)
        #expect(try Configuration(Environment(["SIWA_WEB_MODE": " Popup "])).webMode == .popup)
    }

    @Test(arguments: ["pop-up", "both", "true", "form_post"])
    func anyOtherValueIsAnErrorNamingTheVariable(value: String) {
        #expect(throws: ConfigurationError.malformed(name: "SIWA_WEB_MODE", expected: "redirect or popup")) {
            try Configuration(Environment(["SIWA_WEB_MODE": value]))
        }
        let error = ConfigurationError.malformed(name: "SIWA_WEB_MODE", expected: "redirect or popup")
        #expect(error.description.contains("SIWA_WEB_MODE"))
    }

    @Test func devReadsTheModeFromTheEnvironment() throws {
        let configuration = { (environment: [String: String]) in
            try Configuration.development(hostname: "127.0.0.1", port: 8080, applePort: 9090,
                                          databasePath: "x.sqlite", environment: environment)
        }
        #expect(try configuration([:]).webMode == .redirect)
        #expect(try configuration(["SIWA_WEB_MODE": "popup"]).webMode == .popup)
        #expect(throws: ConfigurationError.self) { try configuration(["SIWA_WEB_MODE": "nope"]) }
    }

    /// Popup mode: the page configures the button with `AppleID.auth.init({…, usePopup: true})` and loads
    /// `/siwa-popup.js`, which posts the result, under `Cross-Origin-Opener-Policy: same-origin-allow-popups`; the
    /// no-script link stays.
    @Test func popupPagesCarryTheOpenerPolicyThePopupSettingsAndTheScriptFile() async throws {
        try await TestApp.with(configure: { $0.webMode = .popup }) { app in
            for path in ["/login", "/register"] {
                let page = try await app.send(.GET, path)
                #expect(page.status == .ok)
                #expect(page.headers["Cross-Origin-Opener-Policy"] == "same-origin-allow-popups")
                let state = try #require(page.cookieValue("SIWA_STATE"))
                #expect(page.text.contains("AppleID.auth.init"))
                #expect(page.text.contains("clientId: \"\(TestApp.webClientID)\","))
                #expect(page.text.contains("scope: \"name email\""))
                #expect(page.text.contains("state: \"\(state)\","))
                #expect(page.text.contains("nonce: \"\(TestApp.nonce(forState: state))\","))
                #expect(page.text.contains("usePopup: true"))
                #expect(!page.text.contains("usePopup: false"))
                #expect(page.text.contains(#"<script type="text/javascript" src="/siwa-popup.js" nonce=""#))
                #expect(page.text.contains(#"id="signin-message""#))
                #expect(page.text.contains("&amp;nonce=\(TestApp.nonce(forState: state))"), "the no-script link")
                #expect(page.text.contains("response_mode=form_post"), "which works without script: a redirect")
            }
            let script = try await app.send(.GET, "/siwa-popup.js")
            #expect(script.status == .ok)
            #expect(script.text.contains("AppleIDSignInOnSuccess"))
            #expect(script.text.contains("/login/siwa/popup"))
            // The script tells the 503 of an exchange that may have spent the code by its reason, and then retries
            // without the code: the words it looks for are the server's.
            let marker = "the authorization code may be used up"
            #expect(script.text.contains("var codeMayBeUsedUp = \"\(marker)\";"))
            let spent = AppleAuthError(.unreachable, mayHaveReachedApple: true)
            #expect(SignInFailure.codeExchange(spent).reason.contains(marker))
            #expect(!SignInFailure.codeExchange(AppleAuthError(.unreachable)).reason.contains(marker))
        }
    }

    @Test func redirectPagesHaveNoOpenerPolicy() async throws {
        try await TestApp.with { app in
            for path in ["/login", "/register", "/"] {
                let page = try await app.send(.GET, path)
                #expect(page.headers["Cross-Origin-Opener-Policy"] == nil, "\(path)")
                #expect(!page.text.contains("siwa-popup.js"))
            }
            #expect(try await app.send(.GET, "/login").text.contains("usePopup: false"))
        }
        try await TestApp.with(configure: { $0.webMode = .popup }) { app in
            let home = try await app.send(.GET, "/")
            #expect(home.headers["Cross-Origin-Opener-Policy"] == nil, "only the login pages")
        }
    }
}
