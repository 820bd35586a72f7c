import Foundation
import HTTPTypes
import OpenAPIRuntime
import OpenAPIURLSession

/// The siwa-server API for an app: sign in with what Sign in with Apple gave, then read the user, log out, or
/// delete the account, each one call. Keeps the bearer token between calls.
///
/// ```swift
/// let siwa = SiwaClient(serverURL: serverURL)  // e.g. https://siwa.example.com
/// try await siwa.signIn(credential: credential, nonce: rawNonce)
/// let me = try await siwa.me()
/// ```
///
/// Every call throws `SiwaError`, with the server's `reason` and, on 429 and 503, `retryAfter`; a cancelled one throws
/// `CancellationError`. A 401 to a call with the bearer token means the token ended (logged out elsewhere, the
/// account deleted, consent revoked at Apple): the client forgets it, and the app is signed out.
public final class SiwaClient: Sendable {
    private let client: Client
    private let token: BearerToken

    /// - Parameters:
    ///   - serverURL: Where the server is, e.g. `https://siwa.example.com`.
    ///   - bearerToken: A token kept from an earlier sign-in (e.g. in the Keychain), or nil.
    ///   - headers: Header fields sent with every request, e.g. `["User-Agent": "MyApp/1.2"]`; a name that is not
    ///     a valid field name is left out.
    ///   - transport: How requests are sent; URLSession by default.
    ///   - onBearerTokenChange: Called with the new token after a sign-in, and with nil whenever the client forgets
    ///     it (`logOut()`, `deleteAccount()`, a 401 that ended it, `signOutLocally()`): where the app keeps the
    ///     Keychain in step, so that a token the server ended is not restored at the next launch.
    public init(serverURL: URL, bearerToken: String? = nil, headers: [String: String] = [:],
                transport: any ClientTransport = URLSessionTransport(),
                onBearerTokenChange: (@Sendable (String?) -> Void)? = nil) {
        token = BearerToken(bearerToken, onChange: onBearerTokenChange)
        var fields = HTTPFields()
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            if let name = HTTPField.Name(name) { fields[name] = value }
        }
        client = Client(serverURL: serverURL, transport: transport,
                        middlewares: [HeadersMiddleware(fields: fields), BearerMiddleware(token: token)])
    }

    /// The bearer token of the current sign-in, to keep in the Keychain; nil when signed out.
    public var bearerToken: String? { token.value }

    /// Forgets the bearer token without telling the server, e.g. when the server cannot be reached and the user
    /// wants out anyway. The token stays valid on the server until it expires; `logOut()` ends it there.
    public func signOutLocally() { token.value = nil }

    /// Signs in with Apple's identity token (`POST /api/users/siwa`) and keeps the bearer token it answers.
    /// - Parameters:
    ///   - identityToken: The identity token, the JWT as a string.
    ///   - authorizationCode: The authorization code, to have the server keep Apple's refresh token.
    ///   - name: The user's name (Apple gives it on the first sign-in only).
    ///   - nonce: The raw nonce whose SHA-256 the request to Apple carried, when it carried one.
    /// - Returns: The ids of the token and the user.
    /// - Throws: `SiwaError`: 400, 401 (token refused), 413, 415, 429 and 503 with `retryAfter`.
    @discardableResult
    public func signIn(identityToken: String, authorizationCode: String? = nil, name: String? = nil,
                       nonce: String? = nil) async throws -> SignedIn {
        let body = Components.Schemas.SignInRequest(token: identityToken, name: name, nonce: nonce,
                                                    authorizationCode: authorizationCode)
        switch try await call({ try await client.signIn(body: .json(body)) }) {
        case .ok(let ok):
            let answer = try decoded { try ok.body.json }
            token.value = answer.value
            return SignedIn(tokenID: answer.id, userID: answer.user.id)
        case .badRequest(let r): throw SiwaError.server(.badRequest, 400, try? r.body.json)
        case .unauthorized(let r): throw SiwaError.server(.unauthorized, 401, try? r.body.json)
        case .contentTooLarge(let r): throw SiwaError.server(.contentTooLarge, 413, try? r.body.json)
        case .unsupportedMediaType(let r): throw SiwaError.server(.unsupportedMediaType, 415, try? r.body.json)
        case .tooManyRequests(let r):
            throw SiwaError.server(.tooManyRequests, 429, try? r.body.json, retryAfter: r.headers.retryAfter)
        case .serviceUnavailable(let r):
            throw SiwaError.server(.serviceUnavailable, 503, try? r.body.json, retryAfter: r.headers.retryAfter)
        case .undocumented(let status, let payload):
            throw await SiwaError.answered(status, retryAfter: payload.headerFields[.retryAfter], body: payload.body)
        }
    }

    /// Signs in with the values of Sign in with Apple's credential, and keeps the bearer token.
    /// - Parameters:
    ///   - credential: The credential's identity token, authorization code and name.
    ///   - nonce: The raw nonce whose SHA-256 the request to Apple carried, when it carried one.
    /// - Returns: The ids of the token and the user.
    /// - Throws: `SiwaError`; `.badRequest` without sending anything when the credential has no identity token.
    @discardableResult
    public func signIn(credential: AppleIDCredential, nonce: String? = nil) async throws -> SignedIn {
        guard let identityToken = credential.identityToken, !identityToken.isEmpty else {
            throw SiwaError(kind: .badRequest, status: nil, reason: "The credential carries no identity token.")
        }
        return try await signIn(identityToken: String(decoding: identityToken, as: UTF8.self),
                                authorizationCode: credential.authorizationCode.map { String(decoding: $0, as: UTF8.self) },
                                name: credential.formattedName, nonce: nonce)
    }

    /// The signed-in user (`GET /api/users/me`).
    /// - Throws: `SiwaError`: `.notSignedIn` before a sign-in, 401 when the token no longer works (it is forgotten:
    ///   the app is signed out), 503.
    public func me() async throws -> SiwaUser {
        guard let sent = token.value else { throw SiwaError.notSignedIn }
        switch try await withBearer(sent, { try await client.getMe() }) {
        case .ok(let ok):
            let me = try decoded { try ok.body.json }
            return SiwaUser(id: me.id, name: me.name, username: me.username, email: me.email,
                            isPrivateEmail: me.isPrivateEmail)
        case .badRequest(let r): throw SiwaError.server(.badRequest, 400, try? r.body.json)
        case .unauthorized(let r): throw ended(sent, SiwaError.server(.unauthorized, 401, try? r.body.json))
        case .serviceUnavailable(let r):
            throw SiwaError.server(.serviceUnavailable, 503, try? r.body.json, retryAfter: r.headers.retryAfter)
        case .undocumented(let status, let payload):
            throw await SiwaError.answered(status, retryAfter: payload.headerFields[.retryAfter], body: payload.body)
        }
    }

    /// Ends the bearer token on the server (`POST /api/users/logout`) and forgets it. A token the server no longer
    /// knows (401) is forgotten too, without an error: the user is signed out either way.
    /// - Throws: `SiwaError`: `.notSignedIn` before a sign-in, 503 or `.transport` (the token is kept, to try
    ///   again; `signOutLocally()` forgets it without the server).
    public func logOut() async throws {
        guard let sent = token.value else { throw SiwaError.notSignedIn }
        let answer: Operations.LogOut.Output
        do {
            answer = try await withBearer(sent, { try await client.logOut() })
        } catch let error as SiwaError where error.kind == .unauthorized {
            return
        }
        switch answer {
        case .noContent, .unauthorized: token.clear(ifStill: sent)
        case .badRequest(let r): throw SiwaError.server(.badRequest, 400, try? r.body.json)
        case .serviceUnavailable(let r):
            throw SiwaError.server(.serviceUnavailable, 503, try? r.body.json, retryAfter: r.headers.retryAfter)
        case .undocumented(let status, let payload):
            throw await SiwaError.answered(status, retryAfter: payload.headerFields[.retryAfter], body: payload.body)
        }
    }

    /// Deletes the account (`DELETE /api/users/me`): the server revokes Apple's tokens and deletes the user, their
    /// tokens and sessions. Forgets the bearer token.
    /// - Throws: `SiwaError`: `.notSignedIn` before a sign-in, 401 when the token no longer works (it is forgotten),
    ///   503.
    public func deleteAccount() async throws {
        guard let sent = token.value else { throw SiwaError.notSignedIn }
        switch try await withBearer(sent, { try await client.deleteAccount() }) {
        case .noContent: token.clear(ifStill: sent)
        case .badRequest(let r): throw SiwaError.server(.badRequest, 400, try? r.body.json)
        case .unauthorized(let r): throw ended(sent, SiwaError.server(.unauthorized, 401, try? r.body.json))
        case .serviceUnavailable(let r):
            throw SiwaError.server(.serviceUnavailable, 503, try? r.body.json, retryAfter: r.headers.retryAfter)
        case .undocumented(let status, let payload):
            throw await SiwaError.answered(status, retryAfter: payload.headerFields[.retryAfter], body: payload.body)
        }
    }

    /// Runs one generated call. A cancelled call throws `CancellationError`; an answer the generated code could not
    /// read (a proxy's HTML page, a body of another shape) is `SiwaError.answered` by its status and headers; what
    /// fails before an answer (network, transport) is `SiwaError.transport`.
    private func call<Output>(_ body: () async throws -> Output) async throws -> Output {
        do {
            return try await body()
        } catch let error as ClientError {
            if error.underlyingError is CancellationError || Task.isCancelled { throw CancellationError() }
            if let response = error.response {
                throw await SiwaError.answered(response.status.code, retryAfter: response.headerFields[.retryAfter],
                                               body: error.responseBody)
            }
            throw SiwaError.transport(error.underlyingError)
        }
    }

    /// `call` for an operation sent with the bearer token `sent`: an unreadable 401 also ends that token.
    private func withBearer<Output>(_ sent: String, _ body: () async throws -> Output) async throws -> Output {
        do {
            return try await call(body)
        } catch let error as SiwaError where error.kind == .unauthorized {
            throw ended(sent, error)
        }
    }

    /// Forgets `sent`, the token the server no longer takes, unless another replaced it meanwhile (a sign-in after
    /// a logout while the call was on its way), and returns `error` to throw.
    private func ended(_ sent: String, _ error: SiwaError) -> SiwaError {
        token.clear(ifStill: sent)
        return error
    }

    /// Reads a documented success body; one of another shape is `SiwaError.unexpectedStatus`.
    private func decoded<Body>(_ body: () throws -> Body) throws -> Body {
        do {
            return try body()
        } catch {
            throw SiwaError(kind: .unexpectedStatus, status: 200, reason: "The server's answer is not the documented JSON.")
        }
    }
}
