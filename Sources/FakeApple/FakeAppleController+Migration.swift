import Foundation
import JSON
import Web

/// The stand-in's side of an app transfer (TN3159; Apple's "Transferring your apps and users to another team" and
/// "Bringing new apps and users into your team"): the `client_credentials` grant with scope `user.migration` on
/// `/auth/token`, and `/auth/usermigrationinfo` in both forms, for whichever of the teams it knows asks.
extension FakeAppleController {
    /// `grant_type=client_credentials`: an access token for the team whose key signed the client secret.
    func clientCredentials(_ form: TokenForm) async throws -> Response {
        guard form.scope == "user.migration" else { return Self.oauthError("invalid_scope") }
        guard let team = clientSecrets.team(of: form.client_secret, clientID: form.client_id, now: clock()) else {
            return Self.oauthError("invalid_client")
        }
        let token = try await transfers.issueAccessToken(team: team, now: clock())
        return Self.jsonAnswer([
            "access_token": .string(token), "token_type": "Bearer",
            "expires_in": .number(Double(FakeAppleTransfers.accessTokenLifetime)),
        ])
    }

    /// `/auth/usermigrationinfo` after the knobs' latency, counted in flight while it is answered (with `/auth/token`).
    @Sendable func userMigrationInfo(_ req: Request) async throws -> Response {
        try await throughKnobs { try await answerMigration(req) }
    }

    /// The sending team's form (`sub`, `target`) gets a transfer identifier; the receiving team's (`transfer_sub`)
    /// gets the user's `sub`, `email` and `is_private_email` in that team. Both need the client secret of a team the
    /// stand-in knows and, as `Authorization: Bearer`, a live access token of that same team.
    private func answerMigration(_ req: Request) async throws -> Response {
        if let retryAfter = await transfers.takeThrottle() {
            var response = Self.oauthError("too_many_requests")
            response.status = .tooManyRequests
            response.headers.replaceOrAdd(name: "Retry-After", value: "\(retryAfter)")
            return response
        }
        guard let form = try? req.content.decode(MigrationForm.self) else { return Self.oauthError("invalid_request") }
        guard let team = clientSecrets.team(of: form.client_secret, clientID: form.client_id, now: clock()),
              await !transfers.refusesMigrationCredentials
        else { return Self.oauthError("invalid_client") }
        let bearer = req.headers["Authorization"] ?? ""
        guard bearer.hasPrefix("Bearer "),
              await transfers.team(ofAccessToken: String(bearer.dropFirst("Bearer ".count)), now: clock()) == team
        else { return Self.oauthError("invalid_grant") }
        await transfers.countMigrationCall()
        if let transferSub = form.transfer_sub {
            guard let moved = await transfers.exchange(transferSub, team: team, now: clock()) else {
                return Self.oauthError("invalid_grant")
            }
            return Self.jsonAnswer([
                "sub": .string(moved.sub), "email": .string(moved.email),
                "is_private_email": .bool(moved.isPrivateEmail),
            ])
        }
        guard let sub = form.sub, !sub.isEmpty, let target = form.target,
              let identifier = await transfers.generate(sub: sub, sender: team, target: target)
        else { return Self.oauthError("invalid_request") }
        return Self.jsonAnswer(["transfer_sub": .string(identifier)])
    }

    /// What App Store Connect's transfer does, which no Apple endpoint plays: the app now belongs to `team`, and
    /// the tokens the stand-in issues are that team's. Not an Apple endpoint; the rehearsal's stand-in for the
    /// transfer itself (the first `transfer_sub` exchange by the receiving team does the same).
    @Sendable func transferApp(_ req: Request) async throws -> Response {
        let form = try req.content.decode(TransferAppForm.self)
        guard FakeAppleTransfers.isTeamID(form.team) else {
            throw Abort(.badRequest, reason: "team must be a team id: 10 capital letters or digits.")
        }
        await transfers.completeTransfer(to: form.team, now: clock())
        return Response(status: .ok, text: "The app now belongs to team \(form.team).\n")
    }
}

struct MigrationForm: Codable, Sendable {
    var client_id: String
    var client_secret: String
    var sub: String?
    var target: String?
    var transfer_sub: String?
}

struct TransferAppForm: Codable, Sendable {
    var team: String
}
