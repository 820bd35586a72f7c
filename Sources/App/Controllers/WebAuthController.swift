import AppleID
import CryptoCore
import Foundation
import HTTPCore
import JOSE
import Web

/// The web redirect flow (README "Web flow"): Apple's button with a state cookie and the nonce bound to it,
/// Apple's `form_post` callback, the auto-submitting hand-off page, and the session that ends it.
struct WebAuthController: RouteCollection {
    let signIns: SignInService
    let accounts: AccountService
    let configuration: Configuration
    /// In front of the callback and handle steps: the per-address rate limit, or nothing.
    let signInLimit: [any Middleware]

    /// Name of the cookie that carries the state across Apple's redirect.
    static let stateCookieName = "SIWA_STATE"
    /// How long a state is good for, in seconds: the cookie's Max-Age.
    static let stateLifetime = 300
    /// Where Apple's button script lives.
    static let appleScriptURL = "https://appleid.cdn-apple.com" + Configuration.appleScriptPath

    func boot(routes: any RoutesBuilder) throws {
        routes.get("login") { req in try await signInPage(req, template: "login", buttonType: "sign-in") }
        routes.get("register") { req in try await signInPage(req, template: "register", buttonType: "sign-up") }
        let signIn = routes.grouped(signInLimit)
        signIn.post("login", "siwa", "callback", use: callback)
        signIn.post("login", "siwa", "handle", use: handle)
        routes.post("logout", use: logout)
    }

    /// What `login` and `register` render.
    struct SignInPageContext: Sendable {
        /// The button's settings as JavaScript string literals, written into `AppleID.auth.init` as Apple's
        /// documentation (and the Vapor book's template) writes them. The nonce is `hex(SHA-256(state))`: Apple
        /// copies it into the identity token, binding the token to this browser.
        var clientIdLiteral, redirectURILiteral, stateLiteral, nonceLiteral: String
        var appleScriptURL, authorizeURL, buttonType: String
        var currentUser: CurrentUserContext?
    }

    func signInPage(_ req: Request, template: String, buttonType: String) async throws -> Response {
        let (clientID, redirectURL) = try webFlowSettings()
        let state = Base64URL.encode(try SecureRandom.bytes(count: 32))
        let nonce = IdentityTokenVerifier.ExpectedNonce.hash(ofState: state)
        let context = SignInPageContext(
            clientIdLiteral: ScriptEscaping.stringLiteral(clientID),
            redirectURILiteral: ScriptEscaping.stringLiteral(redirectURL),
            stateLiteral: ScriptEscaping.stringLiteral(state), nonceLiteral: ScriptEscaping.stringLiteral(nonce),
            appleScriptURL: appleScriptURL,
            authorizeURL: authorizeURL(clientID: clientID, redirectURL: redirectURL, state: state, nonce: nonce),
            buttonType: buttonType, currentUser: try await accounts.currentUser(req).map { CurrentUserContext($0) }
        )
        var response = try req.view.render(template, context).encodeResponse(for: req)
        try response.cookies.set(HTTPCookie(
            name: Self.stateCookieName, value: state, maxAge: Self.stateLifetime, path: "/",
            secure: true, httpOnly: true, sameSite: HTTPCookie.SameSite.none
        ))
        response.headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
        return response
    }

    /// Apple's `form_post` to the redirect URI.
    struct CallbackForm: Decodable, Sendable {
        var state: String?
        var code: String?
        var id_token: String?
        var user: String?
        var error: String?
    }

    /// The `user` JSON Apple posts on a first sign-in.
    struct AppleUser: Decodable, Sendable {
        struct Name: Decodable, Sendable {
            var firstName: String?
            var lastName: String?
        }
        var name: Name?
        var email: String?
    }

    /// What `siwaHandler` renders into hidden fields (HTML-escaped by the template).
    struct HandlerContext: Sendable {
        var token, code, email, firstName, lastName: String
        var currentUser: CurrentUserContext?
    }

    @Sendable func callback(_ req: Request) async throws -> Response {
        _ = try webFlowSettings()
        let form = try req.content.decode(CallbackForm.self)
        let cookieState = req.cookies[Self.stateCookieName] ?? ""
        guard let state = form.state, !state.isEmpty, !cookieState.isEmpty, constantTimeEquals(state, cookieState) else {
            throw Abort(.unauthorized, reason: "The sign-in state does not match this browser. Start again from the login page.")
        }
        if let error = form.error {
            req.logger.info("Apple sign-in ended without a token",
                            metadata: ["apple_error": "\(LogEscaping.escape(error.prefix(64)))"])
            return clearingState(Response.redirect(to: "/login"))
        }
        guard let token = form.id_token, !token.isEmpty else { throw Abort(.badRequest, reason: "Missing field 'id_token'") }
        var user = AppleUser()
        if let json = form.user, !json.isEmpty {
            guard (try? JSONValue(parsingText: Array(json.utf8))) != nil,
                  let decoded = try? JSONDecoder().decode(AppleUser.self, from: Data(json.utf8)) else {
                throw Abort(.badRequest, reason: "Field 'user' is not the JSON Apple sends")
            }
            user = decoded
        }
        let context = HandlerContext(token: token, code: form.code ?? "", email: user.email ?? "", firstName: user.name?.firstName ?? "",
                                     lastName: user.name?.lastName ?? "", currentUser: nil)
        var response = try req.view.render("siwaHandler", context).encodeResponse(for: req)
        response.headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
        return response
    }

    /// What the hand-off page posts. Its `email` field is not read: the email comes only from the verified token.
    struct HandleForm: Decodable, Sendable {
        var token: String
        var code: String?
        var firstName: String?
        var lastName: String?
    }

    @Sendable func handle(_ req: Request) async throws -> Response {
        _ = try webFlowSettings()
        guard let verifier = signIns.webVerifier else { throw Abort(.serviceUnavailable) }
        let form = try req.content.decode(HandleForm.self)
        let nonce = try signIns.boundNonce(stateCookie: req.cookies[Self.stateCookieName], logger: req.logger)
        let identity = try await signIns.verify(form.token, expecting: .exactly(nonce), with: verifier, logger: req.logger)
        let use = try await signIns.unusedNonce(nonce, identity: identity, logger: req.logger)
        let appleToken = try await signIns.exchange(
            code: form.code, clientID: identity.audience, redirectURI: configuration.redirectURL,
            identity: identity, logger: req.logger
        )
        let name = PersonName(firstName: form.firstName ?? "", lastName: form.lastName ?? "")
        let user = try await signIns.signIn(identity: identity, name: name, issueToken: false, appleToken: appleToken,
                                             nonce: use, logger: req.logger).user
        req.session.authenticate(user.id.uuidString)
        return clearingState(.redirect(to: "/"))
    }

    @Sendable func logout(_ req: Request) async throws -> Response {
        req.session.destroy()
        return .redirect(to: "/")
    }

    private func clearingState(_ response: Response) -> Response {
        var response = response
        try? response.cookies.set(HTTPCookie(
            name: Self.stateCookieName, value: "", maxAge: 0, expires: Date(timeIntervalSince1970: 0), path: "/",
            secure: true, httpOnly: true, sameSite: HTTPCookie.SameSite.none
        ))
        return response
    }

    private func webFlowSettings() throws -> (clientID: String, redirectURL: String) {
        guard let clientID = configuration.websiteClientID, let redirectURL = configuration.redirectURL
        else {
            throw Abort(.serviceUnavailable,
                        reason: "Sign in with Apple on the web is not configured (WEBSITE_APPLICATION_IDENTIFIER, SIWA_REDIRECT_URL).")
        }
        return (clientID, redirectURL)
    }

    private var appleScriptURL: String {
        configuration.appleBaseURL == Configuration.appleProductionURL
            ? Self.appleScriptURL : configuration.appleBaseURL + Configuration.appleScriptPath
    }

    /// Apple's authorize URL for a browser without JavaScript: the same request the button makes.
    private func authorizeURL(clientID: String, redirectURL: String, state: String, nonce: String) -> String {
        var components = URLComponents(string: configuration.appleBaseURL + "/auth/authorize")
        components?.queryItems = [
            URLQueryItem(name: "client_id", value: clientID),
            URLQueryItem(name: "redirect_uri", value: redirectURL),
            URLQueryItem(name: "response_type", value: "code id_token"),
            URLQueryItem(name: "scope", value: "name email"),
            URLQueryItem(name: "response_mode", value: "form_post"),
            URLQueryItem(name: "state", value: state),
            URLQueryItem(name: "nonce", value: nonce),
        ]
        return components?.url?.absoluteString ?? configuration.appleBaseURL + "/auth/authorize"
    }
}
