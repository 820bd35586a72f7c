import Foundation
import HTTPCore
import Testing
@testable import App

/// The web flow's pages run only their own scripts: a `Content-Security-Policy` with `script-src` that allows the
/// page's inline scripts by a nonce fresh for each response, the server's own files and Apple's script's origin.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct PageScriptsTests {
    /// The nonce the policy names, and every inline `<script>` of the page carries it.
    private func checkScripts(of page: HTTPClientResponse, appleOrigin: String) throws -> String {
        let policy = try #require(page.headers["Content-Security-Policy"])
        let nonce = try #require(policy.firstMatch(of: /'nonce-([A-Za-z0-9_-]+)'/)?.output.1).description
        #expect(nonce.count == 22, "16 random bytes in base64url")
        #expect(policy == "frame-ancestors 'none'; script-src 'self' 'nonce-\(nonce)' \(appleOrigin); "
            + "object-src 'none'; base-uri 'none'")
        let tags = page.text.matches(of: /<script[^>]*>/).map { String($0.output) }
        #expect(!tags.isEmpty)
        for tag in tags {
            #expect(tag.contains(#"nonce="\#(nonce)""#), "script without the response's nonce: \(tag)")
        }
        return nonce
    }

    @Test(arguments: [WebMode.redirect, .popup])
    func loginAndRegisterPagesAllowOnlyTheirOwnInlineScriptsOursAndApples(mode: WebMode) async throws {
        try await TestApp.with(configure: { $0.webMode = mode }) { app in
            let appleOrigin = try #require(PageScripts.origin(of: app.apple.baseURL))
            var nonces: Set<String> = []
            for path in ["/login", "/register", "/login"] {
                let page = try await app.send(.GET, path)
                #expect(page.status == .ok)
                nonces.insert(try checkScripts(of: page, appleOrigin: appleOrigin))
                #expect(page.text.contains("AppleID.auth.init"), "the script itself is unchanged")
            }
            #expect(nonces.count == 3, "a new nonce for each page")
        }
    }

    @Test func theHandOffPageAllowsOnlyItsOwnInlineScript() async throws {
        try await TestApp.with { app in
            let state = try TestApp.newState()
            let idToken = try app.webToken(state: state)
            let page = try await app.sendForm("/login/siwa/callback", [("state", state), ("id_token", idToken)],
                                              cookies: ["SIWA_STATE": state])
            #expect(page.status == .ok)
            _ = try checkScripts(of: page, appleOrigin: try #require(PageScripts.origin(of: app.apple.baseURL)))
            #expect(page.text.contains(#"document.getElementById("siwa").submit();"#))
        }
    }

    @Test func pagesWithoutScriptsKeepTheDefaultPolicy() async throws {
        try await TestApp.with { app in
            for path in ["/", "/health", "/styles.css", "/no-such-page"] {
                let response = try await app.send(.GET, path)
                #expect(response.headers["Content-Security-Policy"] == "frame-ancestors 'none'", "\(path)")
            }
        }
    }

    @Test func appleScriptsOriginIsTheURLsSchemeHostAndPort() {
        #expect(PageScripts.origin(of: "https://appleid.cdn-apple.com/appleauth/static/jsapi/appleid/1/en_US/appleid.auth.js")
            == "https://appleid.cdn-apple.com")
        #expect(PageScripts.origin(of: "http://127.0.0.1:9090/appleauth/x.js") == "http://127.0.0.1:9090")
        // A host source cannot name an IPv6 literal (CSP Level 3 §2.3.1 `host-char`): browsers drop it, and the
        // page's script tags carry the nonce instead. Found by a review: Apple's script was refused on `[::1]`.
        #expect(PageScripts.origin(of: "http://[::1]:9090/x.js") == nil)
        #expect(PageScripts.origin(of: "https://apple.example") == "https://apple.example")
        #expect(PageScripts.origin(of: "https://apple.example?x") == "https://apple.example")
        #expect(PageScripts.origin(of: "/appleauth/x.js") == nil, "no scheme")
        #expect(PageScripts.origin(of: "https:///x.js") == nil, "no host")
        #expect(PageScripts.origin(of: "https://a.example;script-src *") == nil, "would end the directive")
        #expect(PageScripts.origin(of: "https://a.example,b/x") == nil, "would start another policy")
        #expect(PageScripts.origin(of: "https://a.example'/x") == nil)
    }

    /// Without an origin for Apple's script, the policy still allows the page's own scripts and nothing else.
    @Test func aPolicyWithoutAppleOriginIsStillWellFormed() throws {
        let scripts = try PageScripts(appleScriptURL: "not a url")
        #expect(scripts.policy == "frame-ancestors 'none'; script-src 'self' 'nonce-\(scripts.nonce)'; "
            + "object-src 'none'; base-uri 'none'")
    }
}
