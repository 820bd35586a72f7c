import AppleID
import Foundation
import HTTPCore
import Web

/// The web flow's steps back from Apple (README "The web flow"): the redirect flow's `form_post` callback and
/// hand-off, and the popup's JSON post. Both end in `SignInService.completeWebSignIn`, with the same checks.
///
/// Registered behind a `SessionsMiddleware` that does not read the browser's old session: the sign-in replaces it
/// in its own write, so a sign-in costs one read and one write transaction, as the API's does.
struct WebSignInController: RouteCollection {
    let signIns: SignInService
    let configuration: Configuration
    /// In front of every step: the per-address rate limit, or nothing.
    let signInLimit: [any Middleware]

    func boot(routes: any RoutesBuilder) throws {
        let signIn = routes.grouped(signInLimit)
        signIn.post("login", "siwa", "callback", use: callback)
        signIn.post("login", "siwa", "handle", use: handle)
        routes.grouped(JSONErrorsMiddleware()).grouped(signInLimit).post("login", "siwa", "popup", use: popup)
    }

    /// The `error` Apple posts when the user cancels on its page.
    static let userCancelled = "user_cancelled_authorize"

    /// Apple's `form_post` (`response_mode=form_post`): checks the state and renders the auto-submitting hand-off,
    /// which posts to `handle` from this origin, where the `SameSite=Lax` session cookie can then be set.
    @Sendable func callback(_ req: Request) async throws -> Response {
        _ = try configuration.webFlowSettings()
        let form = try req.content.decode(CallbackForm.self, accepting: .form)
        try SignInService.checkState(form.state, cookie: req.cookies[StateCookie.name])
        if let error = form.error {
            req.logger.info("Apple sign-in ended without a token",
                            metadata: ["apple_error": "\(LogEscaping.field(error.prefix(64)))"])
            // Back to the page, saying which: the user's cancel (`user_cancelled_authorize`), or another of Apple's
            // errors, which the page does not call a cancel. Found by an audit.
            let query = error == Self.userCancelled ? WebAuthController.cancelledQuery : WebAuthController.failedQuery
            return StateCookie.clearing(Response.redirect(to: "/login?\(query)"))
        }
        guard let token = form.id_token, !token.isEmpty else { throw Abort(.badRequest, reason: "Missing field 'id_token'") }
        let user = try AppleUser.parse(formField: form.user)
        return try handOffPage(token: token, code: form.code, email: user.email ?? "",
                               firstName: user.name?.firstName, lastName: user.name?.lastName, req)
    }

    /// The hand-off page (`siwaHandler`) carrying these fields, with its script's nonce and `no-store`; with
    /// `retryReason`, the page that says why it could not finish and offers to post it again, else the one that
    /// posts itself.
    private func handOffPage(token: String, code: String?, email: String, firstName: String?, lastName: String?,
                             retryReason: String? = nil, _ req: Request) throws -> Response {
        let scripts = try PageScripts(appleScriptURL: configuration.appleScriptURL)
        let context = HandlerContext(token: token, code: code ?? "", email: email, firstName: firstName ?? "",
                                     lastName: lastName ?? "", scriptNonce: scripts.nonce, currentUser: nil,
                                     isRetry: retryReason != nil, retryReason: retryReason ?? "")
        var response = try req.view.render("siwaHandler", context).encodeResponse(for: req)
        scripts.apply(to: &response)
        response.headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
        return response
    }

    /// The hand-off's post: signs in and redirects (303) to `/`.
    @Sendable func handle(_ req: Request) async throws -> Response {
        _ = try configuration.webFlowSettings()
        let form = try req.content.decode(HandleForm.self, accepting: .form)
        guard !form.token.isEmpty else { throw Abort(.badRequest, reason: "Field 'token' must not be empty") }
        let name = PersonName(firstName: form.firstName ?? "", lastName: form.lastName ?? "")
        do {
            try await signIn(.init(token: form.token, code: form.code, name: name),
                             stateCookie: req.cookies[StateCookie.name], req)
        } catch let failure as SignInFailure where failure.status == .serviceUnavailable && req.prefersHTMLErrors {
            return try retryPage(form, failure, req)
        }
        return StateCookie.clearing(.redirect(to: "/"))
    }

    /// The hand-off again, for a browser, when Apple could not serve it for now (503): nothing was written, and the
    /// state cookie and the token's nonce are unspent, so posting the same form later can finish the sign-in with
    /// the name Apple sends only the first time. Found by a black-box review: the error page offered only "Sign in
    /// again", a new authorization, and Apple then sent no name. The answer is the 503 with its `Retry-After`.
    ///
    /// When the exchange's request may have reached Apple with no usable answer back (a timeout, garbage), Apple may
    /// have spent the single-use code, and posting it again would be refused (400). The page then posts the identity
    /// token alone, whose nonce and state are unspent: the browser signs in with its name, and its next sign-in
    /// stores a refresh token. Found by a black-box review: "Try again" after a timeout could not succeed.
    private func retryPage(_ form: HandleForm, _ failure: SignInFailure, _ req: Request) throws -> Response {
        var code = form.code
        var reason = failure.reason
        if case .codeExchange(let error) = failure, error.mayHaveReachedApple {
            code = nil
            reason = "Apple's token service gave no usable answer; try again"
        }
        var response = try handOffPage(token: form.token, code: code, email: "", firstName: form.firstName,
                                       lastName: form.lastName, retryReason: reason, req)
        response.status = .serviceUnavailable
        for field in failure.headers { response.headers.replaceOrAdd(name: field.name, value: field.value) }
        return response
    }

    /// Where a signed-in browser goes next.
    struct PopupAnswer: Content {
        var redirect: String
    }

    /// The popup's result (`usePopup: true`, `response_mode=web_message`), posted as JSON by the page's script:
    /// the callback's state check and the hand-off's sign-in in one request. 200 `{"redirect": "/"}` with the
    /// session cookie; 415 for a body that is not JSON, 400 for a malformed one, 401 for the binding and the
    /// token's verification, 503 (with Retry-After) when Apple cannot be reached.
    @Sendable func popup(_ req: Request) async throws -> Response {
        _ = try configuration.webFlowSettings()
        let body = try req.content.decode(PopupBody.self, accepting: .json)
        guard !body.id_token.isEmpty else { throw Abort(.badRequest, reason: "Field 'id_token' must not be empty") }
        let cookie = req.cookies[StateCookie.name]
        try SignInService.checkState(body.state, cookie: cookie)
        let name = body.user?.personName ?? PersonName(firstName: "", lastName: "")
        try await signIn(.init(token: body.id_token, code: body.code, name: name), stateCookie: cookie, req)
        var response = try Response.json(PopupAnswer(redirect: "/"))
        response.headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
        return StateCookie.clearing(response)
    }

    /// Signs the browser in (`SignInService.completeWebSignIn`) with a new session, which it gets once the sign-in
    /// has committed: a failure leaves its session and cookie as they were.
    private func signIn(_ signIn: SignInService.WebSignIn, stateCookie: String?, _ req: Request) async throws {
        let login = try req.session.newLogin()
        let user = try await signIns.completeWebSignIn(
            signIn, stateCookie: stateCookie, redirectURI: configuration.redirectURL,
            login: BrowserLogin(id: login.id, expiresAt: login.expiresAt, replacedIDs: login.replacedIDs), logger: req.logger)
        req.session.adopt(login, userID: user.id.text(uppercase: false))
    }
}
