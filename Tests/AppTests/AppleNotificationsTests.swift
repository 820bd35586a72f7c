import AppleID
import CryptoCore
@testable import FakeApple
import Foundation
import HTTPCore
import JOSE
import JSON
import Storage
import TestSupport
import Testing
import Web
@testable import App

/// `POST /api/apple/notifications` with payloads signed by the stand-in's key, as Apple sends them.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct AppleNotificationsTests {
    /// Signs in `subject` over the API and returns its bearer token.
    private func signedIn(_ app: TestApp, subject: String) async throws -> String {
        let response = try await app.sendJSON(.POST, "/api/users/siwa", [
            "token": try app.identityToken(subject: subject, email: "relay@privaterelay.appleid.com", isPrivateEmail: true),
        ])
        return try #require(try response.json()["value"] as? String)
    }

    private func notify(_ app: TestApp, _ event: String, subject: String, audience: String = TestApp.iosClientID,
                        keys: FakeAppleKeys? = nil, issuedAt: Date = Date()) async throws -> HTTPClientResponse {
        let payload = try FakeAppleNotifier.payload(event: event, subject: subject, audience: audience,
                                                    email: "relay@privaterelay.appleid.com", keys: keys ?? app.keys,
                                                    now: issuedAt)
        return try await app.sendJSON(.POST, "/api/apple/notifications", ["payload": payload])
    }

    private func forwarding(_ app: TestApp, subject: String) async throws -> Bool? {
        guard let user = try await app.server.services.users.find(siwaIdentifier: subject) else { return nil }
        return try await app.server.services.notifications.isEmailForwardingEnabled(userID: user.id)
    }

    /// The stand-in's email events say `is_private_email` by the address, as Apple's do: a relay address is one, a
    /// real address is not. Found by a review: always "true", a notice about a real address marked the user's a relay.
    @Test func theStandInsEmailEventsMarkOnlyRelayAddressesPrivate() async throws {
        try await TestApp.with { app in
            _ = try await app.sendJSON(.POST, "/api/users/siwa", [
                "token": try app.identityToken(subject: "001.real", email: "jane@example.com", isPrivateEmail: false),
            ])
            let payload = try FakeAppleNotifier.payload(event: "email-disabled", subject: "001.real",
                                                        audience: TestApp.iosClientID, email: "jane@example.com",
                                                        keys: app.keys)
            #expect(try await app.sendJSON(.POST, "/api/apple/notifications", ["payload": payload]).status == .ok)
            let user = try #require(try await app.server.services.users.find(siwaIdentifier: "001.real"))
            #expect(!user.isPrivateEmail)
            #expect(FakeAppleKeys.isRelayAddress("x@PrivateRelay.AppleID.com"))
            #expect(!FakeAppleKeys.isRelayAddress("x@privaterelay.appleid.com.example"))
        }
    }

    @Test func emailDisabledAndEnabledUpdateForwarding() async throws {
        try await TestApp.with { app in
            _ = try await signedIn(app, subject: "001.mail")
            #expect(try await forwarding(app, subject: "001.mail") == true)
            let disabled = try await notify(app, "email-disabled", subject: "001.mail")
            #expect(disabled.status == .ok)
            #expect(try disabled.json()["status"] as? String == "applied")
            #expect(try await forwarding(app, subject: "001.mail") == false)
            #expect(try await notify(app, "email-enabled", subject: "001.mail").status == .ok)
            #expect(try await forwarding(app, subject: "001.mail") == true)
        }
    }

    @Test func consentRevokedEndsSessionsButKeepsTheAccount() async throws {
        try await TestApp.with { app in
            let bearer = try await signedIn(app, subject: "001.consent")
            #expect(try await notify(app, "consent-revoked", subject: "001.consent", audience: TestApp.webClientID).status == .ok)
            #expect(try await app.sendJSON(.GET, "/api/users/me", [:], bearer: bearer).status == .unauthorized)
            #expect(try await app.count("users") == 1)
            #expect(try await app.count("tokens") == 0)
        }
    }

    /// An identity token issued before a `consent-revoked` does not sign the user in again for the rest of its
    /// ten minutes, on the API or the web flow's handle step; one issued in the second of the revocation or later, a
    /// new grant, does. Found by a black-box review: the replayed token got a new 30-day bearer token.
    @Test func aTokenIssuedBeforeConsentWasRevokedNoLongerSignsIn() async throws {
        try await TestApp.with { app in
            let subject = "001.replayed"
            let revokedAt = Date()
            let old = try app.identityToken(subject: subject, issuedAt: revokedAt - 120)
            #expect(try await app.sendJSON(.POST, "/api/users/siwa", ["token": old]).status == .ok)
            #expect(try await notify(app, "consent-revoked", subject: subject, issuedAt: revokedAt).status == .ok)

            let tokens = try await app.count("tokens")
            let replayed = try await app.sendJSON(.POST, "/api/users/siwa", ["token": old])
            #expect(replayed.status == .unauthorized)
            #expect(try replayed.json()["reason"] as? String == "The identity token was issued before the user "
                + "stopped using Sign in with Apple with this app; sign in again.")
            #expect(try await app.count("tokens") == tokens, "nothing written")
            // A returning user's token may carry no email (the upsert then only fills a name): refused as well.
            let withoutEmail = try app.identityToken(subject: subject, email: nil, issuedAt: revokedAt - 90)
            #expect(try await app.sendJSON(.POST, "/api/users/siwa", ["token": withoutEmail, "name": "A Name"]).status
                == .unauthorized)
            let state = try TestApp.newState()
            let web = try app.identityToken(subject: subject, audience: TestApp.webClientID,
                                            nonce: TestApp.nonce(forState: state), issuedAt: revokedAt - 60)
            #expect(try await app.handle([("token", web)], state: state).status == .unauthorized)

            let fresh = try app.identityToken(subject: subject, issuedAt: revokedAt)
            #expect(try await app.sendJSON(.POST, "/api/users/siwa", ["token": fresh]).status == .ok)
            #expect(try await app.count("users") == 1)
            // A later revocation moves the line; an older one delivered late does not move it back.
            #expect(try await notify(app, "consent-revoked", subject: subject, issuedAt: revokedAt - 600).status == .ok)
            #expect(try await app.sendJSON(.POST, "/api/users/siwa", ["token": fresh]).status == .ok)
        }
    }

    /// Apple's notifications can arrive late and out of order. A `consent-revoked` ends what was issued up to its
    /// `event_time` (bearer tokens, sessions, Apple tokens), not a sign-in that came after it, a new grant. Found by
    /// an audit: a late delivery ended the newer sign-in and dropped its refresh token unrevoked.
    @Test func aLateConsentRevokedEndsOnlyWhatWasIssuedBeforeItsEvent() async throws {
        try await TestApp.with { app in
            let sessions = DatabaseSessionStore(pool: app.server.services.database)
            let old = try await signedIn(app, subject: "001.late")
            let user = try #require(try await app.server.services.users.find(siwaIdentifier: "001.late"))
            let record = SessionRecord(data: ["userID": user.id.uuidString], expiresAt: Date() + 3600)
            try await sessions.save(id: "before", record: record)
            try await Task.sleep(for: .milliseconds(20))
            let revokedAt = Date()
            try await Task.sleep(for: .milliseconds(20))
            let again = try await app.signInWithAuthorizationCode(subject: "001.late", email: "late@example.com")
            let new = try #require(try again.json()["value"] as? String)
            try await sessions.save(id: "after", record: record)

            let late = try await notify(app, "consent-revoked", subject: "001.late", issuedAt: revokedAt)
            #expect(try late.json()["status"] as? String == "applied")
            #expect(try await app.sendJSON(.GET, "/api/users/me", [:], bearer: old).status == .unauthorized)
            #expect(try await app.sendJSON(.GET, "/api/users/me", [:], bearer: new).status == .ok)
            #expect(try await sessions.load(id: "before") == nil)
            #expect(try await sessions.load(id: "after") != nil)
            #expect(try await app.count("apple_tokens") == 1, "the newer grant's refresh token is kept, to revoke")

            #expect(try await notify(app, "consent-revoked", subject: "001.late").status == .ok)
            #expect(try await app.sendJSON(.GET, "/api/users/me", [:], bearer: new).status == .unauthorized)
            #expect(try await sessions.load(id: "after") == nil)
            #expect(try await app.count("apple_tokens") == 0)
            #expect(try await app.count("users") == 1)
        }
    }

    /// A `consent-revoked` delivered late also ends the bearer tokens that identity tokens from before its event got
    /// meanwhile (created after the event, from an earlier grant: a replay); one from a token of the event's second
    /// or later, a new grant, stays. Found by a black-box review: the replay's bearer token outlived the notification.
    @Test func aLateConsentRevokedEndsWhatAnEarlierGrantGotMeanwhile() async throws {
        try await TestApp.with { app in
            let subject = "001.meanwhile"
            let revokedAt = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down) - 30)
            func bearer(issuedAt: Date) async throws -> String {
                let token = try app.identityToken(subject: subject, issuedAt: issuedAt)
                let response = try await app.sendJSON(.POST, "/api/users/siwa", ["token": token])
                return try #require(try response.json()["value"] as? String)
            }
            let replayed = try await bearer(issuedAt: revokedAt - 120)
            let lastSecondBefore = try await bearer(issuedAt: revokedAt - 1)
            let sameSecond = try await bearer(issuedAt: revokedAt)
            let legacy = try await bearer(issuedAt: revokedAt - 120)
            try await app.server.services.database.write(SQL(
                "UPDATE tokens SET identity_issued_at = NULL WHERE created_at = (SELECT MAX(created_at) FROM tokens)"))

            #expect(try await notify(app, "consent-revoked", subject: subject, issuedAt: revokedAt).status == .ok)
            #expect(try await app.sendJSON(.GET, "/api/users/me", [:], bearer: replayed).status == .unauthorized)
            #expect(try await app.sendJSON(.GET, "/api/users/me", [:], bearer: lastSecondBefore).status
                == .unauthorized)
            #expect(try await app.sendJSON(.GET, "/api/users/me", [:], bearer: sameSecond).status == .ok)
            #expect(try await app.sendJSON(.GET, "/api/users/me", [:], bearer: legacy).status == .ok,
                    "a token stored without its grant's time, by a previous build, is judged by its own time")
        }
    }

    /// The same for browser sessions: one begun after the event with an identity token from before it (the form
    /// post came late) ends when the notification arrives; one from a token of the event's second stays. Found by a
    /// black-box review.
    @Test func aLateConsentRevokedEndsASessionAnEarlierGrantBeganMeanwhile() async throws {
        try await TestApp.with { app in
            let subject = "001.meanwhile.web"
            let revokedAt = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down) - 30)
            for issuedAt in [revokedAt - 60, revokedAt] {
                let state = try TestApp.newState()
                let token = try app.identityToken(subject: subject, audience: TestApp.webClientID,
                                                  nonce: TestApp.nonce(forState: state), issuedAt: issuedAt)
                #expect(try await app.handle([("token", token)], state: state).status == .seeOther)
            }
            #expect(try await app.count("sessions") == 2)
            #expect(try await notify(app, "consent-revoked", subject: subject, audience: TestApp.webClientID,
                                     issuedAt: revokedAt).status == .ok)
            let kept = try await app.server.services.database.read(SQL("SELECT identity_issued_at FROM sessions")) {
                try $0[0] as Date
            }
            #expect(kept == [revokedAt], "only the session of the event's second stays")
        }
    }

    /// An `event_time` after the notification's arrival counts as its arrival: a `consent-revoked` dated ten
    /// minutes ahead does not refuse the fresh sign-ins of those ten minutes. Found by a black-box review.
    @Test func anEventDatedAheadCountsAsOfItsArrival() async throws {
        try await TestApp.with { app in
            let subject = "001.ahead"
            _ = try await signedIn(app, subject: subject)
            let payload = try FakeAppleNotifier.payload(event: "consent-revoked", subject: subject,
                                                        audience: TestApp.iosClientID, email: nil, keys: app.keys,
                                                        eventTime: Date() + 600)
            #expect(try await app.sendJSON(.POST, "/api/apple/notifications", ["payload": payload]).status == .ok)
            try await Task.sleep(for: .seconds(1))  // a fresh token from a later second
            let fresh = try app.identityToken(subject: subject, email: "relay@privaterelay.appleid.com")
            #expect(try await app.sendJSON(.POST, "/api/users/siwa", ["token": fresh]).status == .ok)
        }
    }

    /// A session stored without a start time, as an instance of the previous build stores it during a rolling
    /// upgrade: on PostgreSQL the column's default stamps it, so a late `consent-revoked` from before leaves it; on
    /// SQLite (one instance, no rolling upgrade) it counts as older than any event. Found by an audit.
    @Test func aSessionStoredWithoutATimeIsStampedOnPostgreSQL() async throws {
        try await TestApp.with { app in
            _ = try await signedIn(app, subject: "001.rolling")
            let user = try #require(try await app.server.services.users.find(siwaIdentifier: "001.rolling"))
            let revokedAt = Date() - 60
            try await app.server.services.database.write(SQL(
                "INSERT INTO sessions (id, data, user_id, expires_at) VALUES (?, '{}', ?, ?)",
                ["previous-build", user.id, Date() + 3600]))
            #expect(try await notify(app, "consent-revoked", subject: "001.rolling", issuedAt: revokedAt).status == .ok)
            #expect(try await app.count("sessions") == (PostgresCluster.testsUsePostgres ? 1 : 0))
        }
    }

    /// An email event older than the one applied changes nothing (`outdated`): Apple's `email-disabled` then
    /// `email-enabled`, delivered the other way round, leave forwarding enabled. Found by an audit.
    @Test func emailEventsDeliveredOutOfOrderKeepTheLatest() async throws {
        try await TestApp.with { app in
            _ = try await signedIn(app, subject: "001.order")
            let disabledAt = Date() - 10
            #expect(try await notify(app, "email-enabled", subject: "001.order").status == .ok)
            let stale = try await notify(app, "email-disabled", subject: "001.order", issuedAt: disabledAt)
            #expect(stale.status == .ok)
            #expect(try stale.json()["status"] as? String == "outdated")
            #expect(try await forwarding(app, subject: "001.order") == true)
            #expect(try await notify(app, "email-disabled", subject: "001.order").status == .ok)
            #expect(try await forwarding(app, subject: "001.order") == false)
        }
    }

    /// An identity token older than the email event applied to its user does not put back the email it carries;
    /// a newer one does. Found by a black-box review: a stale token reverted the relay address an `email-enabled`
    /// had set.
    @Test func aTokenOlderThanAnEmailEventKeepsTheEventsEmail() async throws {
        try await TestApp.with { app in
            let subject = "001.stale"
            let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            func signIn(email: String, issuedAt: Date) async throws -> String? {
                let token = try app.identityToken(subject: subject, email: email, isPrivateEmail: true,
                                                  issuedAt: issuedAt)
                let value = try #require(try await app.sendJSON(.POST, "/api/users/siwa", ["token": token])
                    .json()["value"] as? String)
                return try await app.sendJSON(.GET, "/api/users/me", [:], bearer: value).json()["email"] as? String
            }
            let first = try await signIn(email: "old@privaterelay.appleid.com", issuedAt: now - 120)
            #expect(first == "old@privaterelay.appleid.com")
            #expect(try await notify(app, "email-enabled", subject: subject, issuedAt: now - 60).status == .ok)
            let stale = try await signIn(email: "old@privaterelay.appleid.com", issuedAt: now - 61)
            #expect(stale == "relay@privaterelay.appleid.com", "the event's address stays")
            let newer = try await signIn(email: "new@privaterelay.appleid.com", issuedAt: now - 60)
            #expect(newer == "new@privaterelay.appleid.com", "a token of the event's second is as new")
        }
    }

    /// The other way round: an email event from before the identity token that set the stored email, delivered
    /// late, leaves that email (its forwarding state still applies). Found by a black-box review: it put back the
    /// relay address over the email a newer sign-in had stored.
    @Test func aLateEmailEventKeepsTheEmailANewerTokenSet() async throws {
        try await TestApp.with { app in
            let subject = "001.late.email"
            let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            for (email, issuedAt) in [("relay@privaterelay.appleid.com", now - 120), ("jane@example.com", now - 30)] {
                let token = try app.identityToken(subject: subject, email: email, issuedAt: issuedAt)
                #expect(try await app.sendJSON(.POST, "/api/users/siwa", ["token": token]).status == .ok)
            }
            let late = try await notify(app, "email-disabled", subject: subject, issuedAt: now - 60)
            #expect(try late.json()["status"] as? String == "applied")
            let user = try #require(try await app.server.services.users.find(siwaIdentifier: subject))
            #expect(user.email == "jane@example.com")
            #expect(!user.isPrivateEmail)
            #expect(try await forwarding(app, subject: subject) == false, "the forwarding state still applies")
        }
    }

    @Test(arguments: ["account-delete", "account-deleted"])
    func accountDeleteDeletesTheAccount(_ spelling: String) async throws {
        try await TestApp.with { app in
            _ = try await signedIn(app, subject: "001.gone")
            #expect(try await notify(app, spelling, subject: "001.gone").status == .ok)
            #expect(try await app.count("users") == 0)
            #expect(try await app.count("tokens") == 0)
        }
    }

    @Test func aReplayedNotificationIsAnswered200AndIgnored() async throws {
        try await TestApp.with { app in
            _ = try await signedIn(app, subject: "001.replay")
            let payload = try FakeAppleNotifier.payload(event: "email-disabled", subject: "001.replay",
                                                        audience: TestApp.iosClientID, email: nil, keys: app.keys)
            #expect(try await app.sendJSON(.POST, "/api/apple/notifications", ["payload": payload]).status == .ok)
            #expect(try await notify(app, "email-enabled", subject: "001.replay").status == .ok)
            let replay = try await app.sendJSON(.POST, "/api/apple/notifications", ["payload": payload])
            #expect(replay.status == .ok)
            #expect(try replay.json()["status"] as? String == "duplicate")
            #expect(try await forwarding(app, subject: "001.replay") == true, "the replayed email-disabled changed nothing")
        }
    }

    /// An `account-delete` or `consent-revoked` for a `sub` no user holds is kept, and logged with the `sub`: during an
    /// app transfer it names a user not yet imported, to whom the import applies it (found by a black-box review: the
    /// import brought back an account Apple said was deleted). Email events for such a `sub` are neither kept nor
    /// logged.
    @Test func unknownUsersAndUnknownEventsAre200() async throws {
        let log = LogCapture()
        try await TestApp.with(logger: log.logger()) { app in
            let unknownUser = try await notify(app, "account-delete", subject: "001.nobody")
            #expect(unknownUser.status == .ok)
            #expect(try unknownUser.json()["status"] as? String == "unknownUser")
            #expect(log.contains("notice", "account-delete for a sub no user holds: kept for 60 days",
                                 "sub=001.nobody"), "\(log.text)")
            _ = try await notify(app, "consent-revoked", subject: "001.nobody.too")
            #expect(log.contains("notice", "consent-revoked for a sub no user holds", "sub=001.nobody.too"))
            _ = try await notify(app, "email-disabled", subject: "001.nobody.either")
            #expect(!log.contains("sub=001.nobody.either"))
            #expect(try await app.count("held_apple_notifications") == 2)
            _ = try await signedIn(app, subject: "001.known")
            let unknownEvent = try await notify(app, "something-new", subject: "001.known")
            #expect(unknownEvent.status == .ok)
            #expect(try await app.count("users") == 1)
        }
    }

    /// Apple retries a delivery not answered with 200 for the payload's life, a day (`exp` = `iat` + 24 h): an
    /// `account-delete` sent two hours before the server could answer (an outage) is applied when it comes again.
    /// Found by a review: anything issued over an hour before was refused with 401, for good.
    @Test func aNotificationRetriedHoursLaterIsApplied() async throws {
        try await TestApp.with { app in
            _ = try await signedIn(app, subject: "001.retried")
            let retried = try await notify(app, "account-delete", subject: "001.retried",
                                           issuedAt: Date().addingTimeInterval(-2 * 3600))
            #expect(retried.status == .ok)
            #expect(try retried.json()["status"] as? String == "applied")
            #expect(try await app.count("users") == 0)
        }
    }

    /// A payload is verified as an identity token is, `exp` included (Apple's carry one, `iat` + 24 h): one
    /// without it is refused and changes nothing. Found by a review: it was applied.
    @Test func aPayloadWithoutAnExpiryIs401() async throws {
        try await TestApp.with { app in
            _ = try await signedIn(app, subject: "001.noexp")
            let now = Date().timeIntervalSince1970.rounded(.down)
            let claims: JSONValue = [
                "iss": .string(IdentityTokenVerifier.appleIssuer), "aud": .string(TestApp.iosClientID),
                "iat": .number(now), "jti": "no-expiry",
                "events": .string(#"{"type":"account-delete","sub":"001.noexp","event_time":1}"#),
            ]
            let payload = try JWTSigner.sign(claims: claims, keyID: app.keys.keyID, key: .rs256(app.keys.privateKey))
            let response = try await app.sendJSON(.POST, "/api/apple/notifications", ["payload": payload])
            #expect(response.status == .unauthorized)
            #expect(try await app.count("users") == 1)
        }
    }

    /// `event_time` is milliseconds since 1970: one of another type is no notification of Apple's (400, nothing
    /// changed); missing or null, the event counts as of its arrival. Found by a black-box review: `"abc"` was taken
    /// as the arrival, which for a `consent-revoked` also ends grants from after the real event.
    @Test(arguments: [(#""abc""#, 400), ("true", 400), ("-1", 400), ("{}", 400), ("null", 200), (nil, 200)]
          as [(String?, Int)])
    func anEventTimeThatIsNoTimeIs400(eventTime: String?, status: Int) async throws {
        try await TestApp.with { app in
            _ = try await signedIn(app, subject: "001.time")
            let now = Date().timeIntervalSince1970.rounded(.down)
            let time = eventTime.map { #","event_time":"# + $0 } ?? ""
            let claims: JSONValue = [
                "iss": .string(IdentityTokenVerifier.appleIssuer), "aud": .string(TestApp.iosClientID),
                "iat": .number(now), "exp": .number(now + 3600), "jti": .string("time-\(eventTime ?? "none")"),
                "events": .string(#"{"type":"consent-revoked","sub":"001.time""# + time + "}"),
            ]
            let payload = try JWTSigner.sign(claims: claims, keyID: app.keys.keyID, key: .rs256(app.keys.privateKey))
            let response = try await app.sendJSON(.POST, "/api/apple/notifications", ["payload": payload])
            #expect(response.status.code == status, "\(response.text)")
            #expect(try await app.count("tokens") == (status == 200 ? 0 : 1))
        }
    }

    @Test func badSignatureForeignAudienceStaleAndMalformedJWTsAre401() async throws {
        try await TestApp.with { app in
            _ = try await signedIn(app, subject: "001.safe")
            let otherKeys = try FakeAppleKeys(privateKey: try RSAPrivateKey.generate(bits: 2048))
            #expect(try await notify(app, "account-delete", subject: "001.safe", keys: otherKeys).status == .unauthorized)
            #expect(try await notify(app, "account-delete", subject: "001.safe", audience: "com.evil.app").status == .unauthorized)
            #expect(try await notify(app, "account-delete", subject: "001.safe",
                                     issuedAt: Date().addingTimeInterval(-ServerNotification.maximumAge - 61))
                .status == .unauthorized)
            let malformed = try await app.sendJSON(.POST, "/api/apple/notifications", ["payload": "a.b"])
            #expect(malformed.status == .unauthorized)
            #expect(malformed.headers["WWW-Authenticate"] == #"Bearer realm="siwa""#, "RFC 9110 §15.5.2")
            #expect(try await app.sendJSON(.POST, "/api/apple/notifications", [:]).status == .badRequest)
            // Signed by Apple for our audience, but an identity token: no `events` claim.
            let notNotification = try await app.sendJSON(.POST, "/api/apple/notifications", ["payload": try app.identityToken()])
            #expect(notNotification.status == .badRequest)
            #expect(try await app.count("users") == 1)
        }
    }

    /// `siwa fake-apple notify` exits 1 when the server refuses the notification, 0 when it takes it. Found by an
    /// audit: it exited 0 after "Server answered 401.". It prints what the server answered (found by a black-box
    /// review: only the status, never `applied` or `unknownUser`).
    @Test func theNotifyCommandExitsNonZeroWhenRefused() async throws {
        try await TestApp.with { app in
            let keyFile = app.directory.appendingPathComponent("apple.pem").path
            let arguments = ["fake-apple", "notify", "--event", "email-disabled", "--sub", "001.cli",
                             "--url", app.baseURL + "/api/apple/notifications", "--key-file", keyFile]
            let refused = try await app.command(arguments + ["--aud", "not.a.client.id"])
            #expect(refused.status == 1)
            #expect(refused.output.contains(
                "Server answered 401: Invalid notification payload, signature or audience."), "\(refused.output)")
            let taken = try await app.command(arguments + ["--aud", TestApp.iosClientID])
            #expect(taken.status == 0, "\(taken.output)")
            #expect(taken.output.contains("Server answered 200: unknownUser."), "\(taken.output)")
        }
    }
}
