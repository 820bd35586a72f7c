import AppleID
import CryptoCore
import Foundation
import Web

/// The web flow's pages (README "The web flow"): `/login` and `/register` with Apple's button, a fresh state cookie
/// and the nonce bound to it, in the mode `SIWA_WEB_MODE` chooses; and `POST /logout`. The steps that come back
/// from Apple are `WebSignInController`'s.
struct WebAuthController: RouteCollection {
    let accounts: AccountService
    let configuration: Configuration

    /// The opener policy of popup-mode pages (HTML Living Standard §7.1.3): the popup Apple opens from them
    /// keeps its `window.opener`, so its result can come back with `postMessage`; `same-origin` would cut it.
    static let popupOpenerPolicy = "same-origin-allow-popups"

    func boot(routes: any RoutesBuilder) throws {
        routes.get("login") { req in try await signInPage(req, template: "login", buttonType: "sign-in") }
        routes.get("register") { req in try await signInPage(req, template: "register", buttonType: "sign-up") }
        routes.post("logout", use: logout)
    }

    /// What `login` and `register` render.
    struct SignInPageContext: Sendable {
        /// The button's settings as JavaScript string literals, written into `AppleID.auth.init` as Apple's
        /// documentation (and the Vapor book's template) writes them. The nonce is `hex(SHA-256(state))`: Apple
        /// copies it into the identity token, binding the token to this browser.
        var clientIdLiteral, redirectURILiteral, stateLiteral, nonceLiteral: String
        var appleScriptURL, authorizeURL, buttonType: String
        /// The nonce the page's inline scripts carry (`PageScripts`).
        var scriptNonce: String
        /// Whether the button opens Apple in a popup (`SIWA_WEB_MODE=popup`).
        var popup: Bool
        /// Whether the last sign-in was cancelled on Apple's page (`?cancelled`, set by the callback).
        var cancelled: Bool
        /// Whether Apple ended the last sign-in with another error (`?failed`, set by the callback).
        var failed: Bool
        var currentUser: CurrentUserContext?
    }

    /// The query the callback adds to `/login` when the user cancelled on Apple's page.
    static let cancelledQuery = "cancelled"
    /// The query the callback adds to `/login` when Apple ended the sign-in with another error.
    static let failedQuery = "failed"

    func signInPage(_ req: Request, template: String, buttonType: String) async throws -> Response {
        let (clientID, redirectURL) = try configuration.webFlowSettings()
        let state = Base64URL.encode(try SecureRandom.bytes(count: 32))
        let nonce = IdentityTokenVerifier.ExpectedNonce.hash(ofState: state)
        let popup = configuration.webMode == .popup
        let scripts = try PageScripts(appleScriptURL: configuration.appleScriptURL)
        let context = SignInPageContext(
            clientIdLiteral: ScriptEscaping.stringLiteral(clientID),
            redirectURILiteral: ScriptEscaping.stringLiteral(redirectURL),
            stateLiteral: ScriptEscaping.stringLiteral(state), nonceLiteral: ScriptEscaping.stringLiteral(nonce),
            appleScriptURL: configuration.appleScriptURL,
            authorizeURL: configuration.authorizeURL(clientID: clientID, redirectURL: redirectURL, state: state,
                                                     nonce: nonce),
            buttonType: buttonType, scriptNonce: scripts.nonce, popup: popup,
            cancelled: !req.query.values(for: Self.cancelledQuery).isEmpty,
            failed: !req.query.values(for: Self.failedQuery).isEmpty,
            currentUser: try await accounts.user(inSession: req.sessionUserID).map { CurrentUserContext($0) }
        )
        var response = try req.view.render(template, context).encodeResponse(for: req)
        try StateCookie.set(state, on: &response)
        scripts.apply(to: &response)
        response.headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
        if popup { response.headers.replaceOrAdd(name: "Cross-Origin-Opener-Policy", value: Self.popupOpenerPolicy) }
        return response
    }

    @Sendable func logout(_ req: Request) async throws -> Response {
        req.session.destroy()
        return .redirect(to: "/")
    }
}
