import AppleID
import CryptoCore
import Foundation
import HTTPCore
import JSON
import Web

/// The stand-in's routes: Apple's `/auth/keys`, `/auth/authorize`, `/auth/token`, `/auth/revoke`,
/// `/auth/usermigrationinfo` (`FakeAppleController+Migration.swift`), and the button script, behaving as Apple
/// documents them (form-encoded requests, `{"error": ...}` answers).
struct FakeAppleController: RouteCollection {
    let keys: FakeAppleKeys
    let state: FakeAppleState
    let transfers: FakeAppleTransfers
    let clientSecrets: FakeAppleClientSecretCheck
    let knobs: FakeAppleTokenKnobs
    /// The Services IDs `/auth/authorize` knows, with their return URLs; empty, it takes any.
    let webClients: [String: [String]]
    let clock: @Sendable () -> Date

    /// Lifetime of identity tokens the stand-in mints, as Apple's (10 minutes).
    static let identityTokenLifetime: TimeInterval = 600
    /// `expires_in` of access tokens.
    static let accessTokenLifetime = 3600

    func boot(routes: any RoutesBuilder) throws {
        routes.get("auth", "keys", use: jwks)
        routes.get("auth", "authorize", use: authorizePage)
        routes.post("auth", "authorize", use: authorize)
        routes.post("auth", "token", use: token)
        routes.post("auth", "revoke", use: revoke)
        routes.post("auth", "usermigrationinfo", use: userMigrationInfo)
        routes.post("dev", "app-credential", use: appCredential)
        routes.post("dev", "transfer-app", use: transferApp)
        routes.get("dev", "faults", use: faults)
        routes.post("dev", "faults", use: setFaults)
        routes.get("appleauth", "static", "jsapi", "appleid", "1", "en_US", "appleid.auth.js", use: script)
    }

    @Sendable func jwks(_ req: Request) async throws -> Response {
        var response = Response(status: .ok, body: .bytes(try keys.jwksJSON()))
        response.headers.replaceOrAdd(name: "Content-Type", value: "application/json")
        response.headers.replaceOrAdd(name: "Cache-Control", value: "public, max-age=3600")
        return response
    }

    @Sendable func script(_ req: Request) async throws -> Response {
        let base = "\(req.isSecure ? "https" : "http")://\(req.host ?? "127.0.0.1")"
        var response = Response(status: .ok, text: FakeAppleScript.source(authorizeURL: base + "/auth/authorize"))
        response.headers.replaceOrAdd(name: "Content-Type", value: "text/javascript; charset=utf-8")
        return response
    }

    @Sendable func authorizePage(_ req: Request) async throws -> Response {
        let query = try req.query.decode(AuthorizeQuery.self)
        try query.validate()
        if let refusal = refusal(of: query) { return refusal }
        return .html(FakeAppleAuthorizePage.consent(query))
    }

    /// Apple's error page when `webClients` names the known Services IDs and `query` is not for one of them, or not
    /// for one of its return URLs: nothing is posted to an address the Services ID does not list. Found by a
    /// black-box review: any client id and any `redirect_uri` were taken, so a wrong `SIWA_REDIRECT_URL` or
    /// `WEBSITE_APPLICATION_IDENTIFIER` worked locally and failed only at Apple.
    private func refusal(of query: AuthorizeQuery) -> Response? {
        guard !webClients.isEmpty else { return nil }
        guard let returnURLs = webClients[query.client_id] else {
            return FakeAppleAuthorizePage.error("invalid_client", "Invalid client id or web redirect url.")
        }
        guard returnURLs.contains(query.redirect_uri) else {
            return FakeAppleAuthorizePage.error("invalid_request", "Invalid web redirect url.")
        }
        return nil
    }

    @Sendable func authorize(_ req: Request) async throws -> Response {
        let query = try req.content.decode(AuthorizeQuery.self, accepting: .form)
        try query.validate()
        if let refusal = refusal(of: query) { return refusal }
        if try req.content.decode(CancelForm.self, accepting: .form).cancel != nil {
            let state = query.state.map { [("state", $0)] } ?? []
            return try answer(query, fields: [("error", AuthorizeQuery.userCancelled)] + state)
        }
        let form = try req.content.decode(ConsentForm.self, accepting: .form)
        let email = form.email.trimmingCharacters(in: .whitespaces)
        guard email.contains("@") else { throw Abort(.badRequest, reason: "Enter an email address.") }
        let subject = FakeAppleKeys.subject(forEmail: email)
        let sharedEmail = form.hideEmail == "on" ? FakeAppleKeys.relayAddress(forEmail: email) : email
        var grant = FakeAppleState.Grant(clientID: query.client_id, subject: subject, email: sharedEmail,
                                         isPrivateEmail: form.hideEmail == "on")
        // Apple puts the address in the identity token only for an authorization that asked for `email`. Found by a
        // review: a page that left the scope out signed new users up here, and every one was refused at Apple.
        grant.sharesEmail = query.scopes.contains("email")
        let (code, idToken, _) = try await issueCode(grant, redirectURI: query.redirect_uri, nonce: query.nonce)
        var fields = [("code", code)]
        if query.wantsIdentityToken { fields.append(("id_token", idToken)) }
        if let state = query.state { fields.append(("state", state)) }
        if await state.isFirstAuthorization(grant),
           let user = try FakeAppleAuthorizePage.userJSON(name: query.scopes.contains("name") ? form.name ?? "" : nil,
                                                          email: query.scopes.contains("email") ? sharedEmail : nil) {
            fields.append(("user", user))
        }
        return try answer(query, fields: fields)
    }

    /// The authorization's result as `response_mode` asks: posted to the redirect URI, handed to the opener, or a
    /// redirect with the fields in the URI's query or fragment. Found by a review: `query` and `fragment` were posted,
    /// so a callback written for the stand-in's POST never got Apple's GET.
    private func answer(_ query: AuthorizeQuery, fields: [(String, String)]) throws -> Response {
        switch query.responseMode {
        case AuthorizeQuery.webMessage:
            return .html(try FakeAppleAuthorizePage.webMessage(to: query.redirect_uri, fields: fields))
        case AuthorizeQuery.formPost:
            return .html(FakeAppleAuthorizePage.formPost(to: query.redirect_uri, fields: fields))
        default:
            let parameters = fields.map { name, value in
                Self.percentEncoded(name) + "=" + Self.percentEncoded(value)
            }.joined(separator: "&")
            let separator = query.responseMode == AuthorizeQuery.fragment ? "#"
                : (query.redirect_uri.contains("?") ? "&" : "?")
            return .redirect(to: query.redirect_uri + separator + parameters)
        }
    }

    /// `value` percent-encoded for a query or fragment component (RFC 3986 §3.4: unreserved characters only).
    static func percentEncoded(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    private static let unreserved = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// What `ASAuthorizationAppleIDCredential` gives an iOS app, which no web page can play: an identity token and
    /// an authorization code issued to `client_id` (the bundle id) with no redirect URI, so the server exchanges
    /// it as an app's code. Not an Apple endpoint; the stand-in's way to test `authorizationCode` with curl.
    @Sendable func appCredential(_ req: Request) async throws -> Response {
        let form = try req.content.decode(AppCredentialForm.self)
        let email = form.email.trimmingCharacters(in: .whitespaces)
        guard !form.client_id.isEmpty else { throw Abort(.badRequest, reason: "client_id (the bundle id) is required.") }
        guard email.contains("@") else { throw Abort(.badRequest, reason: "email must be an email address.") }
        let subject = FakeAppleKeys.subject(forEmail: email)
        let grant = FakeAppleState.Grant(clientID: form.client_id, subject: subject, email: email, isPrivateEmail: false)
        // `user` is the token's `sub`, as `ASAuthorizationAppleIDCredential.user` is: after a transfer, the
        // receiving team's. Found by an audit: it was the sending team's, which `notify --sub` did not know.
        let (code, idToken, user) = try await issueCode(grant, redirectURI: "", nonce: form.nonce)
        return try Response.json(AppCredential(identityToken: idToken, authorizationCode: code, user: user))
    }

    /// `/auth/token` after the knobs' latency, counted in flight while it is answered.
    @Sendable func token(_ req: Request) async throws -> Response {
        try await throughKnobs { try await answerToken(req) }
    }

    /// `answer` after the knobs' latency, counted in flight while it runs (`/auth/token`, `/auth/revoke`,
    /// `/auth/usermigrationinfo`).
    func throughKnobs(_ answer: () async throws -> Response) async throws -> Response {
        let (latency, failure) = await knobs.begin()
        do {
            if latency > 0 { try await Task.sleep(for: .milliseconds(Int(latency * 1000))) }
            let response = if let failure {
                Self.failure(status: failure.status, retryAfter: failure.retryAfter)
            } else {
                try await answer()
            }
            await knobs.end()
            return response
        } catch {
            await knobs.end()
            throw error
        }
    }

    private func answerToken(_ req: Request) async throws -> Response {
        guard let form = try? req.content.decode(TokenForm.self, accepting: .form) else {
            return Self.oauthError("invalid_request")
        }
        guard clientSecrets.isValid(form.client_secret, clientID: form.client_id, now: clock()) else {
            return Self.oauthError("invalid_client")
        }
        do {
            switch form.grant_type {
            case "authorization_code":
                guard let code = form.code else { return Self.oauthError("invalid_request") }
                let issued = try await state.redeem(code: code, clientID: form.client_id, redirectURI: form.redirect_uri)
                let refreshToken = "r" + Base64URL.encode(try SecureRandom.bytes(count: 32))
                await state.store(refreshToken: refreshToken, .init(grant: issued.grant))
                await state.store(accessToken: issued.exchange.accessToken, for: issued.grant)
                return Self.tokenResponse(issued.exchange, refreshToken: refreshToken)
            case "client_credentials":
                return try await clientCredentials(form)
            case "refresh_token":
                await knobs.countRefresh()
                guard let token = form.refresh_token else { return Self.oauthError("invalid_request") }
                let stored = try await state.refresh(token: token, clientID: form.client_id)
                let tokens = try exchangeTokens(stored.grant)
                await state.store(accessToken: tokens.accessToken, for: stored.grant)
                return Self.tokenResponse(tokens, refreshToken: nil)
            default:
                return Self.oauthError("unsupported_grant_type")
            }
        } catch FakeAppleState.GrantError.invalidGrant {
            return Self.oauthError("invalid_grant")
        }
    }

    /// `/auth/revoke`, through the same knobs as `/auth/token`.
    @Sendable func revoke(_ req: Request) async throws -> Response {
        try await throughKnobs { try await answerRevoke(req) }
    }

    private func answerRevoke(_ req: Request) async throws -> Response {
        guard let form = try? req.content.decode(RevokeForm.self, accepting: .form) else {
            return Self.oauthError("invalid_request")
        }
        guard clientSecrets.isValid(form.client_secret, clientID: form.client_id, now: clock()) else {
            return Self.oauthError("invalid_client")
        }
        await state.revoke(token: form.token, clientID: form.client_id, hint: form.token_type_hint)
        return Response(status: .ok)
    }

    /// A new authorization code and the identity token that comes with it (`c_hash` binds them), as Apple
    /// gives an app or posts to a web redirect URI.
    /// After a transfer the grant is the receiving team's (`FakeAppleTransfers.scoped`).
    ///
    /// The tokens its exchange will answer with are signed now, not at `/auth/token`: their `iat` is the code's, at
    /// most `FakeAppleState.codeLifetime` earlier than Apple's would be, and the RS256 signature, the stand-in's
    /// largest cost, stays off the exchange, so that a benchmark of the server's exchange measures the server.
    /// - Returns: the code, its identity token, and the user as the app sees it (the token's `sub`: after a
    ///   transfer, the receiving team's).
    func issueCode(_ grant: FakeAppleState.Grant, redirectURI: String,
                   nonce: String?) async throws -> (code: String, idToken: String, user: String) {
        let grant = await transfers.scoped(grant, now: clock())
        let code = "c" + Base64URL.encode(try SecureRandom.bytes(count: 24))
        await state.issue(code: code, .init(grant: grant, redirectURI: redirectURI, nonce: nonce, issuedAt: clock(),
                                            exchange: try exchangeTokens(grant, nonce: nonce)))
        var claims: [String: JSONValue] = ["c_hash": .string(TokenHash.of(code))]
        // An app's token says whether the user seems real (`real_user_status`: 2, likely real); a web page's
        // has no such claim (Apple's "Authenticating users with Sign in with Apple").
        if redirectURI.isEmpty { claims["real_user_status"] = 2 }
        let idToken = try mintIdentityToken(grant, nonce: nonce, extraClaims: claims)
        return (code, idToken, grant.subject)
    }

    private func mintIdentityToken(_ grant: FakeAppleState.Grant, nonce: String? = nil,
                                   extraClaims: [String: JSONValue]) throws -> String {
        var extraClaims = extraClaims
        if let transferSub = grant.transferSub { extraClaims["transfer_sub"] = .string(transferSub) }
        return try keys.mintIdentityToken(IdentityTokenRequest(
            subject: grant.subject, audience: grant.clientID, email: grant.sharesEmail ? grant.email : nil,
            isPrivateEmail: grant.isPrivateEmail,
            nonce: nonce, lifetime: Self.identityTokenLifetime, extraClaims: extraClaims
        ), now: clock())
    }

    /// A new access token for `grant`, and an identity token with its `at_hash`. The code's exchange carries the
    /// authorization request's `nonce` (OpenID Connect Core 3.1.3.6); a refresh's carries none (12.2).
    private func exchangeTokens(_ grant: FakeAppleState.Grant, nonce: String? = nil) throws
        -> FakeAppleState.ExchangeTokens
    {
        let accessToken = "a" + Base64URL.encode(try SecureRandom.bytes(count: 24))
        let idToken = try mintIdentityToken(grant, nonce: nonce,
                                            extraClaims: ["at_hash": .string(TokenHash.of(accessToken))])
        return FakeAppleState.ExchangeTokens(accessToken: accessToken, idToken: idToken)
    }

    private static func tokenResponse(_ tokens: FakeAppleState.ExchangeTokens, refreshToken: String?) -> Response {
        var body: [String: JSONValue] = [
            "access_token": .string(tokens.accessToken), "token_type": "Bearer",
            "expires_in": .number(Double(Self.accessTokenLifetime)), "id_token": .string(tokens.idToken),
        ]
        if let refreshToken { body["refresh_token"] = .string(refreshToken) }
        return Self.jsonAnswer(body)
    }

    /// A 200 JSON answer, not to be cached (RFC 6749 §5.1).
    static func jsonAnswer(_ members: [String: JSONValue]) -> Response {
        var response = Response(status: .ok, body: .bytes(JSONValue.object(members).serialized()))
        response.headers.replaceOrAdd(name: "Content-Type", value: "application/json")
        response.headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
        return response
    }

    /// Apple's error answer: 400 with `{"error": "<code>"}` (RFC 6749 §5.2).
    static func oauthError(_ code: String) -> Response {
        var response = Response(status: .badRequest, body: .bytes(JSONValue.object(["error": .string(code)]).serialized()))
        response.headers.replaceOrAdd(name: "Content-Type", value: "application/json")
        return response
    }
}

/// The query of `/auth/authorize`, as Apple's button sends it.
struct AuthorizeQuery: Codable, Sendable {
    var client_id: String
    var redirect_uri: String
    var response_type: String?
    var response_mode: String?
    var scope: String?
    var state: String?
    var nonce: String?

    /// The `response_mode` of Apple's JS in popup mode: the result goes to the opener with `postMessage`.
    static let webMessage = "web_message"
    static let formPost = "form_post"
    static let fragment = "fragment"
    static let query = "query"
    /// The response modes Apple takes.
    static let responseModes: Set<String> = [query, fragment, formPost, webMessage]
    /// `response_mode`, or its default when none was sent: `fragment` with an identity token (which Apple never puts
    /// in a query), `query` otherwise (RFC 6749 §4.1.2, OAuth 2.0 Multiple Response Type Encoding Practices §5).
    var responseMode: String { response_mode ?? (wantsIdentityToken ? Self.fragment : Self.query) }
    /// The `error` Apple sends back when the user cancels on its page.
    static let userCancelled = "user_cancelled_authorize"

    /// The requested scopes: `name` and `email` are what Apple gives (one, both or none).
    var scopes: Set<Substring> { Set((scope ?? "").split(separator: " ")) }
    /// The requested response types: `code`, or `code` and `id_token`.
    var responseTypes: Set<Substring> { Set((response_type ?? "").split(separator: " ")) }
    var wantsIdentityToken: Bool { responseTypes.contains("id_token") }

    /// Apple's rules ("Request an authorization to the Sign in with Apple server"): a redirect URI is required;
    /// `response_type` is `code` or `code id_token` (an identity token alone is not offered); asking for name or
    /// email requires `form_post` (or, from Apple's JS in popup mode, `web_message`: the page behind the redirect
    /// URI's origin gets the same fields).
    func validate() throws {
        guard let url = URLComponents(string: redirect_uri), url.scheme == "http" || url.scheme == "https" else {
            throw Abort(.badRequest, reason: "invalid_request: redirect_uri must be an absolute http(s) URL")
        }
        guard responseTypes.contains("code"), responseTypes.isSubset(of: ["code", "id_token"]) else {
            throw Abort(.badRequest, reason: "unsupported_response_type: response_type must be code or code id_token")
        }
        // Found by a review: modes Apple refuses were taken, and an authorize URL that worked here failed at Apple.
        guard Self.responseModes.contains(responseMode) else {
            throw Abort(.badRequest, reason: "invalid_request: Invalid response mode")
        }
        if wantsIdentityToken, responseMode == Self.query {
            throw Abort(.badRequest, reason: "invalid_request: response_mode must be fragment or form_post when "
                        + "response_type has id_token")
        }
        if !scopes.isEmpty, responseMode != Self.formPost, responseMode != Self.webMessage {
            throw Abort(.badRequest,
                        reason: "invalid_request: response_mode must be form_post or web_message when scope is requested")
        }
    }
}

/// The consent page's Cancel button.
struct CancelForm: Codable, Sendable {
    var cancel: String?
}

/// What the consent page adds to the authorize query's fields when it posts back.
struct ConsentForm: Codable, Sendable {
    var name: String?
    var email: String
    var hideEmail: String?
}

struct AppCredentialForm: Codable, Sendable {
    var client_id: String
    var email: String
    var nonce: String?
}

/// The fields of `ASAuthorizationAppleIDCredential` an app sends on: `identityToken`, `authorizationCode`, `user`.
struct AppCredential: Codable, Sendable {
    var identityToken: String
    var authorizationCode: String
    var user: String
}

struct TokenForm: Codable, Sendable {
    var client_id: String
    var client_secret: String
    var grant_type: String
    var code: String?
    var refresh_token: String?
    var redirect_uri: String?
    var scope: String?
}

struct RevokeForm: Codable, Sendable {
    var client_id: String
    var client_secret: String
    var token: String
    var token_type_hint: String?
}
