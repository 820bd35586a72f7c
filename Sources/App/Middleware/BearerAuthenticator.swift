import Foundation
import HTTPCore
import Web

/// The bearer token a request authenticated with: its id (the value itself is never kept).
struct BearerCredential: Sendable {
    var tokenID: UUID
}

/// Requires `Authorization: Bearer <token>` naming a live token (RFC 6750 §2.1), and logs its user in:
/// `req.auth.require(User.self)`. Anything else is 401 with `WWW-Authenticate: Bearer` (RFC 6750 §3).
struct BearerAuthenticator: Middleware {
    let tokens: TokenRepository

    /// Longest token value looked up; ours are 43 characters (`BearerTokenValue.length`), so a longer one cannot
    /// be ours.
    static let maximumTokenLength = 512

    func respond(to request: Request, chainingTo next: any Responder) async throws -> Response {
        guard let value = try request.bearerToken else {
            throw Self.unauthorized("Missing bearer token", error: nil)
        }
        guard value.utf8.count <= Self.maximumTokenLength else {
            throw Self.unauthorized("Invalid or expired bearer token", error: "invalid_token")
        }
        guard let found = try await tokens.find(BearerTokenValue(value)) else {
            throw Self.unauthorized("Invalid or expired bearer token", error: "invalid_token")
        }
        request.auth.login(found.user)
        request.auth.login(BearerCredential(tokenID: found.tokenID))
        return try await next.respond(to: request)
    }

    /// The challenge of this server's bearer tokens, which every 401 carries (RFC 9110 §15.5.2): the sign-in's too,
    /// whose answer is the bearer token (`Application.unauthorizedChallenge`).
    static let challenge = "Bearer realm=\"siwa\""

    private static func unauthorized(_ reason: String, error: String?) -> Abort {
        var challenge = Self.challenge
        if let error { challenge += ", error=\"\(error)\"" }
        return Abort(.unauthorized, reason: reason, headers: ["WWW-Authenticate": challenge])
    }
}
