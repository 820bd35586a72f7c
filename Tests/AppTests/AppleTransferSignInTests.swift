import CryptoCore
@testable import FakeApple
import Foundation
import HTTPCore
import JSON
import Storage
import TestSupport
import Testing
@testable import App

/// Matching users as they sign in after the app moved: a token whose `sub` is unknown but whose `transfer_sub` is a
/// stored identifier is that user, on the API and in the web flow; unknown both ways, it is a new user.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct AppleTransferSignInTests {
    static let target = TestApp.receivingTeamID

    @Test func aKnownTransferSubSignsInAsThatUserOnTheAPIAndLaterSignInsUseTheNewSub() async throws {
        try await TestApp.withTwoTeams { app in
            let first = try await app.signInWithAuthorizationCode(subject: "001.api", email: "api@example.com")
            let id = try #require((try first.json()["user"] as? [String: Any])?["id"] as? String)
            #expect(try await app.command(["apple", "transfer", "export", "--to", Self.target]).status == 0)
            let transferSub = FakeAppleTransfers.transferIdentifier(sub: "001.api", target: Self.target)

            let moved = try await app.sendJSON(.POST, "/api/users/siwa", ["token": try app.movedToken(
                sub: "001.api", email: "api.new@example.com", transferSub: transferSub)])
            #expect(moved.status == .ok, "\(moved.text)")
            #expect((try moved.json()["user"] as? [String: Any])?["id"] as? String == id)
            let row = try #require(try await app.transferRows().first { $0.id.uuidString.lowercased() == id })
            #expect(row.sub == FakeAppleTransfers.teamSubject("001.api", team: Self.target))
            #expect(row.email == "api.new@example.com")
            #expect(row.transferredAt != nil)

            let later = try await app.sendJSON(.POST, "/api/users/siwa", ["token": try app.movedToken(
                sub: "001.api", email: "api.new@example.com", transferSub: nil)])
            #expect((try later.json()["user"] as? [String: Any])?["id"] as? String == id)
            #expect(try await app.count("users") == 1)
            let status = try await app.command(["apple", "transfer", "status"])
            #expect(status.output.contains("migrated: 1\nstill to migrate: 0"), "\(status.output)")
            // The window is counted from this first move, with no import: the transfer was at the latest then.
            // Found by an audit: it said "not started" until an import.
            #expect(status.lines.last?.hasPrefix("days left in the 60-day window: 60 at most (the first user moved here ")
                    == true, "\(status.output)")
        }
    }

    /// A `consent-revoked` for the receiving team's `sub` that came before the user moved is kept, and applied once a
    /// sign-in matched by `transfer_sub` gives the user that `sub`: the grant from before the event ends, the sign-in
    /// after it is a new grant and stays.
    @Test func aRevocationKeptForTheNewSubIsAppliedByTheSignInThatMovesTheUser() async throws {
        try await TestApp.withTwoTeams { app in
            let first = try await app.signInWithAuthorizationCode(subject: "001.kept", email: "kept@example.com")
            let before = try #require(try first.json()["value"] as? String)
            #expect(try await app.command(["apple", "transfer", "export", "--to", Self.target]).status == 0)
            #expect(try await app.notifyReceivingTeam("consent-revoked", sub: "001.kept") == "unknownUser")

            let transferSub = FakeAppleTransfers.transferIdentifier(sub: "001.kept", target: Self.target)
            let moved = try await app.sendJSON(.POST, "/api/users/siwa", ["token": try app.movedToken(
                sub: "001.kept", email: "kept@example.com", transferSub: transferSub)])
            #expect(moved.status == .ok, "\(moved.text)")
            let after = try #require(try moved.json()["value"] as? String)
            #expect(try await app.sendJSON(.GET, "/api/users/me", [:], bearer: before).status == .unauthorized)
            #expect(try await app.sendJSON(.GET, "/api/users/me", [:], bearer: after).status == .ok)
            #expect(try await app.count("held_apple_notifications") == 0)
        }
    }

    /// Kept events apply before the sign-in that moves the user is judged, as they would have on arrival: after a kept
    /// `account-delete` the moved user is gone and the sign-in makes a new user whose token works; a kept
    /// `consent-revoked` later than the token's `iat` refuses the sign-in (401, the consent reason), as for a user who
    /// held the `sub` already. Found by a review: applied after the sign-in, they ended the bearer token it had just
    /// answered with (200, then 401).
    @Test func keptEventsApplyBeforeTheSignInThatMovesTheUserIsJudged() async throws {
        try await TestApp.withTwoTeams { app in
            for subject in ["001.deleted", "001.late"] {
                _ = try await app.signInWithAuthorizationCode(subject: subject, email: "\(subject)@example.com")
            }
            let before = try #require(try await app.transferRow(sub: "001.deleted")).id
            #expect(try await app.command(["apple", "transfer", "export", "--to", Self.target]).status == 0)
            #expect(try await app.notifyReceivingTeam("account-delete", sub: "001.deleted") == "unknownUser")
            #expect(try await app.notifyReceivingTeam("consent-revoked", sub: "001.late") == "unknownUser")

            let renewed = try await app.sendJSON(.POST, "/api/users/siwa", ["token": try app.movedToken(
                sub: "001.deleted", email: "001.deleted@example.com",
                transferSub: FakeAppleTransfers.transferIdentifier(sub: "001.deleted", target: Self.target))])
            #expect(renewed.status == .ok, "\(renewed.text)")
            let id = try #require((try renewed.json()["user"] as? [String: Any])?["id"] as? String)
            #expect(id != before.uuidString.lowercased(), "a new user: the one Apple said was deleted is gone")
            let bearer = try #require(try renewed.json()["value"] as? String)
            #expect(try await app.sendJSON(.GET, "/api/users/me", [:], bearer: bearer).status == .ok)

            // A token issued half a minute before the revocation came.
            let lateSub = FakeAppleTransfers.transferIdentifier(sub: "001.late", target: Self.target)
            let early = try app.keys.mintIdentityToken(IdentityTokenRequest(
                subject: FakeAppleTransfers.teamSubject("001.late", team: Self.target), audience: TestApp.iosClientID,
                email: "001.late@example.com", extraClaims: [
                    "transfer_sub": .string(lateSub),
                    "iat": .number(Date().timeIntervalSince1970.rounded(.down) - 30),
                ]))
            let refused = try await app.sendJSON(.POST, "/api/users/siwa", ["token": early])
            #expect(refused.status == .unauthorized, "\(refused.text)")
            #expect(try refused.json()["reason"] as? String == "The identity token was issued before the user stopped "
                + "using Sign in with Apple with this app; sign in again.")
            #expect(try await app.count("held_apple_notifications") == 0)
        }
    }

    /// The refresh token of the sign-in that moved the user is the user's current grant, not one the previous team
    /// issued before the move: when Apple later refuses it, the user's bearer tokens end, on both engines. Found by a
    /// review: stamped at the exchange, microseconds before the move, it was taken for the previous team's on
    /// PostgreSQL, and only dropped.
    @Test func theGrantOfTheSignInThatMovedTheUserIsTheirCurrentOne() async throws {
        try await TestApp.withTwoTeams { app in
            #expect(try await app.signInWithAuthorizationCode(subject: "001.mv", email: "mv@example.com").status == .ok)
            #expect(try await app.command(["apple", "transfer", "export", "--to", Self.target]).status == 0)
            await app.apple.completeTransfer(to: Self.target)
            let moved = try await app.signInWithAuthorizationCode(subject: "001.mv", email: "mv@example.com")
            #expect(moved.status == .ok, "\(moved.text)")
            #expect(try await app.transferRows().first?.transferredAt != nil, "this sign-in moved the user")
            let bearer = try #require(try moved.json()["value"] as? String)
            #expect(try await app.count("apple_tokens") == 1)

            try await app.makeAppleTokensDue()
            try await app.revokeStoredAppleToken()
            let report = try await app.runChore(.validateTokens)
            #expect(report.summary.contains("0 valid, 1 revoked"), "\(report)")
            #expect(try await app.sendJSON(.GET, "/api/users/me", [:], bearer: bearer).status == .unauthorized)
        }
    }

    @Test func aKnownTransferSubSignsInAsThatUserInTheWebFlow() async throws {
        try await TestApp.withTwoTeams { app in
            #expect(try await app.webSignIn(subject: "001.browser", email: "browser@example.com").status == .seeOther)
            let before = try #require(try await app.transferRow(sub: "001.browser"))
            #expect(try await app.command(["apple", "transfer", "export", "--to", Self.target]).status == 0)

            let state = try TestApp.newState()
            let token = try app.movedToken(
                sub: "001.browser", email: "browser@example.com",
                transferSub: FakeAppleTransfers.transferIdentifier(sub: "001.browser", target: Self.target),
                audience: TestApp.webClientID, nonce: TestApp.nonce(forState: state))
            let response = try await app.handle([("token", token)], state: state)
            #expect(response.status == .seeOther, "\(response.text)")
            #expect(try await app.count("users") == 1)
            let after = try #require(try await app.transferRows().first)
            #expect(after.id == before.id && after.sub == FakeAppleTransfers.teamSubject("001.browser", team: Self.target))
            let sessionUser = try await app.server.services.database.readOne(
                SQL("SELECT user_id FROM sessions WHERE user_id IS NOT NULL")) { try $0[0] as UUID }
            #expect(sessionUser == before.id, "the browser is signed in as the user who moved")
        }
    }

    @Test func theStandInsOwnTokensCarryTransferSubOnceTheAppMoved() async throws {
        try await TestApp.withTwoTeams { app in
            let first = try await app.signInWithAuthorizationCode(subject: "001.stand", email: "stand@example.com")
            let id = try #require((try first.json()["user"] as? [String: Any])?["id"] as? String)
            #expect(try await app.command(["apple", "transfer", "export", "--to", Self.target]).status == 0)
            await app.apple.completeTransfer(to: Self.target)

            let again = try await app.signInWithAuthorizationCode(subject: "001.stand", email: "stand@example.com")
            #expect(again.status == .ok, "\(again.text)")
            #expect((try again.json()["user"] as? [String: Any])?["id"] as? String == id)
            #expect(try await app.transferRow(sub: FakeAppleTransfers.teamSubject("001.stand", team: Self.target))?.id
                .uuidString.lowercased() == id)
        }
    }

    /// Once the app moved, the stand-in's `/dev/app-credential` names the user by the token's `sub`, the receiving
    /// team's, as `ASAuthorizationAppleIDCredential.user` does. Found by an audit: it named the sending team's.
    @Test func theStandInsAppCredentialNamesTheUserByTheTokensSubAfterTheMove() async throws {
        try await TestApp.withTwoTeams { app in
            await app.apple.completeTransfer(to: Self.target)
            let form = TestApp.formEncode([("client_id", TestApp.iosClientID), ("email", "moved@example.com")])
            let credential = try await app.client.send(HTTPClientRequest(
                method: .POST, url: app.apple.baseURL + "/dev/app-credential",
                headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array(form.utf8))).json()
            let token = try #require(credential["identityToken"] as? String)
            let payload = try #require(Base64URL.decode(String(token.split(separator: ".")[1])))
            let sub = try #require(try JSONValue(parsing: payload)["sub"]?.stringValue)
            #expect(credential["user"] as? String == sub)
            #expect(sub == FakeAppleTransfers.teamSubject(FakeAppleKeys.subject(forEmail: "moved@example.com"),
                                                          team: Self.target))
        }
    }

    @Test func anUnknownTransferSubWithAnUnknownSubIsANewUser() async throws {
        try await TestApp.withTwoTeams { app in
            try await app.seedUsers(1)
            #expect(try await app.command(["apple", "transfer", "export", "--to", Self.target]).status == 0)
            let response = try await app.sendJSON(.POST, "/api/users/siwa", ["token": try app.movedToken(
                sub: "001.stranger", email: "stranger@example.com", transferSub: "000000.nobody.t000")])
            #expect(response.status == .ok, "\(response.text)")
            #expect(try await app.count("users") == 2)
            #expect(try await app.transferRow(sub: "001.seed.0")?.transferredAt == nil)
        }
    }
}
