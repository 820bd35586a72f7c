import AppleID
import Foundation
import HTTPCore
import Web

/// The iOS API (README, "The iOS flow"): sign in with an identity token, read and end the bearer session,
/// delete the account.
struct UsersController: RouteCollection {
    let signIns: SignInService
    let accounts: AccountService
    let tokens: TokenRepository
    /// In front of `POST /api/users/siwa`: the per-address rate limit, or nothing.
    let signInLimit: [any Middleware]

    func boot(routes: any RoutesBuilder) throws {
        let users = routes.grouped("api", "users")
        users.grouped(signInLimit).post("siwa", use: signIn)
        let authenticated = users.grouped(BearerAuthenticator(tokens: tokens))
        authenticated.get("me", use: me)
        authenticated.post("logout", use: logout)
        authenticated.delete("me", use: deleteAccount)
    }

    /// The body the TIL iOS app posts.
    struct SignInRequest: Decodable, Sendable {
        var token: String
        var name: String?
        var nonce: String?
        var authorizationCode: String?
    }

    /// The answer the TIL iOS app decodes as its `Token`.
    struct SignInResponse: Content {
        struct UserID: Content { var id: UUID }
        var id: UUID
        var value: String
        var user: UserID
    }

    @Sendable func signIn(_ req: Request) async throws -> SignInResponse {
        guard let verifier = signIns.iosVerifier else {
            throw Abort(.serviceUnavailable, reason: "Sign in with Apple for apps is not configured (IOS_APPLICATION_IDENTIFIER).")
        }
        let body = try SignInRequest.decode(from: req)
        guard !body.token.isEmpty else { throw Abort(.badRequest, reason: "Field 'token' must not be empty") }
        let identity = try await signIns.verify(body.token, expecting: .request(body.nonce), with: verifier,
                                                logger: req.logger)
        let appleToken = try await signIns.exchange(code: body.authorizationCode, clientID: identity.audience,
                                                    redirectURI: nil, identity: identity, logger: req.logger)
        let result = try await signIns.signIn(
            identity: identity, name: body.name.map(PersonName.init(fullName:)), issueToken: true,
            appleToken: appleToken, logger: req.logger
        )
        guard let issued = result.token else { throw Abort(.internalServerError) }
        return SignInResponse(id: issued.token.id, value: issued.value, user: .init(id: issued.user.id))
    }

    /// `GET /api/users/me`.
    struct MeResponse: Content {
        var id: UUID
        var name, username, email: String
        var isPrivateEmail: Bool
    }

    @Sendable func me(_ req: Request) async throws -> MeResponse {
        let user = try req.auth.require(User.self)
        return MeResponse(id: user.id, name: user.name, username: user.username, email: user.email,
                          isPrivateEmail: user.isPrivateEmail)
    }

    @Sendable func logout(_ req: Request) async throws -> HTTPStatus {
        let bearer = try req.auth.require(BearerCredential.self)
        try await tokens.delete(id: bearer.tokenID)
        return .noContent
    }

    @Sendable func deleteAccount(_ req: Request) async throws -> HTTPStatus {
        let user = try req.auth.require(User.self)
        try await accounts.deleteAccount(user, logger: req.logger)
        return .noContent
    }
}
