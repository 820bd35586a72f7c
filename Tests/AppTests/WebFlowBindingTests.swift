import AppleID
@testable import FakeApple
import Foundation
import HTTPCore
import Storage
import Testing
@testable import App

/// The handle step takes only a token whose `nonce` is the hex SHA-256 of this browser's `SIWA_STATE` cookie,
/// once: what stops login CSRF and a token replayed into another browser.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct WebFlowBindingTests {
    private func expectRefused(_ response: HTTPClientResponse, _ app: TestApp, users: Int = 0,
                               sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(response.status == .unauthorized, sourceLocation: sourceLocation)
        #expect(response.headers["WWW-Authenticate"] == #"Bearer realm="siwa""#, "RFC 9110 §15.5.2",
                sourceLocation: sourceLocation)
        #expect(try response.json()["error"] as? Bool == true, sourceLocation: sourceLocation)
        #expect(try response.json()["reason"] as? String != nil, sourceLocation: sourceLocation)
        #expect(response.setCookies["session"] == nil, sourceLocation: sourceLocation)
        #expect(try await app.count("users") == users, sourceLocation: sourceLocation)
        #expect(try await app.count("sessions") == 0, sourceLocation: sourceLocation)
    }

    /// A used nonce outlives every instant at which an instance could still accept its token: swept at the
    /// token's last good second (exp + leeway), or by an instance whose clock is ahead, it is still there, and
    /// the replay is refused. Found by a review: it was kept only until that second, and the token signed in twice.
    @Test(arguments: [(0.0, 60.0), (30.0, 30.0), (SignInService.nonceClockMargin, 0.0)])
    func aUsedNonceOutlivesItsTokenOnEveryInstance(sweeperAhead: TimeInterval, afterExpiry: TimeInterval)
        async throws
    {
        let clock = TestClock()
        try await TestApp.with(clock: clock) { app in
            let state = try TestApp.newState()
            let token = try app.identityToken(subject: "001.replay", audience: TestApp.webClientID,
                                              nonce: TestApp.nonce(forState: state), issuedAt: clock.now, lifetime: 600)
            #expect(try await app.handle([("token", token)], state: state).status == .seeOther)
            clock.advance(by: 600 + afterExpiry)
            let sweeper = UsedNonceRepository(pool: app.server.services.database,
                                              now: { [clock] in clock.now.addingTimeInterval(sweeperAhead) })
            #expect(try await sweeper.sweepExpired() == 0)
            let replay = try await app.handle([("token", token)], state: state)
            #expect(replay.status == .unauthorized)
            #expect(try await app.count("sessions") == 1)
        }
    }

    /// Past the margin the nonce is swept, and the token, long expired, is refused by the verifier.
    @Test func aUsedNonceIsSweptOnceNoInstanceAcceptsItsToken() async throws {
        let clock = TestClock()
        try await TestApp.with(clock: clock) { app in
            let state = try TestApp.newState()
            let token = try app.identityToken(subject: "001.swept", audience: TestApp.webClientID,
                                              nonce: TestApp.nonce(forState: state), issuedAt: clock.now, lifetime: 600)
            #expect(try await app.handle([("token", token)], state: state).status == .seeOther)
            clock.advance(by: 600 + IdentityTokenVerifier.defaultLeeway + SignInService.nonceClockMargin)
            let sweeper = UsedNonceRepository(pool: app.server.services.database, now: { [clock] in clock.now })
            #expect(try await sweeper.sweepExpired() == 1)
            #expect(try await app.handle([("token", token)], state: state).status == .unauthorized)
        }
    }

    /// Login CSRF: an attacker signs in at Apple with their own browser's state, then makes the victim's browser
    /// post the attacker's valid token. The victim's cookie does not hash to the token's nonce: 401, no session.
    /// The same token with the attacker's own cookie signs the attacker in.
    @Test func attackersTokenPostedWithTheVictimsCookieIsRefused() async throws {
        try await TestApp.with { app in
            let attackerState = try #require(try await app.send(.GET, "/login").cookieValue("SIWA_STATE"))
            let victimState = try #require(try await app.send(.GET, "/login").cookieValue("SIWA_STATE"))
            let attackersToken = try app.webToken(state: attackerState, subject: "001.attacker", email: "evil@example.com")

            let planted = try await app.handle([("token", attackersToken)], state: victimState)
            try await expectRefused(planted, app)
            #expect(planted.setCookies["SIWA_STATE"] == nil, "the victim's own sign-in can still go on")

            let own = try await app.handle([("token", attackersToken)], state: attackerState)
            #expect(own.status == .seeOther)
            #expect(own.cookieValue("session") != nil)
            #expect(try await app.server.services.users.find(siwaIdentifier: "001.attacker") != nil)
        }
    }

    @Test func noCookieNoNonceOrAnotherNonceIsRefused() async throws {
        try await TestApp.with { app in
            let state = try TestApp.newState()
            try await expectRefused(try await app.handle([("token", try app.webToken(state: state))], state: nil), app)
            try await expectRefused(try await app.handle([("token", try app.webToken(state: state))], state: ""), app)
            let unbound = try app.identityToken(audience: TestApp.webClientID)
            let unboundAnswer = try await app.handle([("token", unbound)], state: state)
            try await expectRefused(unboundAnswer, app)
            // Not only another tab: a token issued for no sign-in of this page (found by a black-box review).
            #expect(unboundAnswer.text.contains("the identity token was not issued for this page's sign-in"),
                    "\(unboundAnswer.text)")
            let other = try app.webToken(state: try TestApp.newState())
            let otherPage = try await app.handle([("token", other)], state: state)
            try await expectRefused(otherPage, app)
            // In the browser's words, not the app's ("send the raw nonce"): found by an audit.
            #expect(otherPage.text.contains("does not match this browser"), "\(otherPage.text)")
            #expect(!otherPage.text.contains("raw nonce"))
            let raw = try app.identityToken(audience: TestApp.webClientID, nonce: state)
            try await expectRefused(try await app.handle([("token", raw)], state: state), app, users: 0)
            let doubleHashed = try app.identityToken(audience: TestApp.webClientID,
                                                     nonce: TestApp.nonce(forState: TestApp.nonce(forState: state)))
            try await expectRefused(try await app.handle([("token", doubleHashed)], state: state), app)
        }
    }

    /// A sibling subdomain can plant a second `SIWA_STATE` or `session`; whichever copy comes first, a request
    /// carrying two is read as carrying none: 401 at the callback and the handle step and no account; signed out
    /// on pages.
    @Test func duplicatedStateOrSessionCookiesCountAsNone() async throws {
        try await TestApp.with { app in
            let real = try #require(try await app.send(.GET, "/login").cookieValue("SIWA_STATE"))
            let planted = try TestApp.newState()
            let token = try app.webToken(state: real, subject: "001.tossed")
            for cookie in ["SIWA_STATE=\(planted); SIWA_STATE=\(real)", "SIWA_STATE=\(real); SIWA_STATE=\(real)"] {
                let headers: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie]
                let callback = try await app.send(.POST, "/login/siwa/callback", headers: headers, body: Array(
                    TestApp.formEncode([("state", real), ("id_token", token)]).utf8))
                #expect(callback.status == .unauthorized)
                let handle = try await app.send(.POST, "/login/siwa/handle", headers: headers,
                                                body: Array(TestApp.formEncode([("token", token)]).utf8))
                try await expectRefused(handle, app)
            }
            let signedIn = try await app.handle([("token", token)], state: real)
            #expect(signedIn.status == .seeOther, "one copy signs in")
            let session = try #require(signedIn.cookieValue("session"))
            #expect(try await app.send(.GET, "/", headers: ["Cookie": "session=\(session)"]).text.contains("user-email"))
            for cookie in ["session=\(session); session=planted", "session=\(session); session=\(session)"] {
                let page = try await app.send(.GET, "/", headers: ["Cookie": cookie])
                #expect(page.status == .ok)
                #expect(!page.text.contains("user-email") && page.text.contains("href=\"/login\""))
            }
        }
    }

    /// A sign-in whose request carries `session` twice (a sibling domain's beside the browser's own) ends both
    /// sessions it names, as a logout does, in its own write. Found by a review: it ended neither, and the browser's
    /// old session, whose cookie the new one then replaced, lived on out of reach of a logout.
    @Test func aSignInWithTheSessionCookieSentTwiceEndsBothSessions() async throws {
        try await TestApp.with { app in
            let first = try #require(try await app.webSignIn(subject: "001.twice.a").cookieValue("session"))
            let second = try #require(try await app.webSignIn(subject: "001.twice.b").cookieValue("session"))
            let state = try TestApp.newState()
            let token = try app.webToken(state: state, subject: "001.twice.a")
            let answer = try await app.send(.POST, "/login/siwa/handle", headers: [
                "Content-Type": "application/x-www-form-urlencoded",
                "Cookie": "SIWA_STATE=\(state); session=\(first); session=\(second)",
            ], body: Array(TestApp.formEncode([("token", token)]).utf8))
            #expect(answer.status == .seeOther)
            let new = try #require(answer.cookieValue("session"))
            #expect(![first, second].contains(new))
            for old in [first, second] {
                let page = try await app.send(.GET, "/", headers: ["Cookie": "session=\(old)"])
                #expect(!page.text.contains("user-email"), "an old session still signs in")
            }
            #expect(try await app.send(.GET, "/", headers: ["Cookie": "session=\(new)"]).text.contains("user-email"))
            #expect(try await app.count("sessions") == 1)
        }
    }

    /// A session ended while its first home page ran (here by `consent-revoked`, between the page's read of the
    /// session and its save of the account form's token) stays ended. Found by a review: the save was an upsert.
    @Test func aSessionEndedWhileItsHomePageRanStaysEnded() async throws {
        try await TestApp.with { app in
            let subject = "001.ended.meanwhile"
            let session = try #require(try await app.webSignIn(subject: subject).cookieValue("session"))
            let store = app.server.services.sessions
            var record = try #require(try await store.load(id: session))
            let payload = try FakeAppleNotifier.payload(event: "consent-revoked", subject: subject,
                                                        audience: TestApp.webClientID, email: nil, keys: app.keys)
            #expect(try await app.sendJSON(.POST, "/api/apple/notifications", ["payload": payload]).status == .ok)
            record.data[AccountController.csrfKey] = "token"
            #expect(try await store.update(id: session, record: record) == false)
            #expect(try await store.load(id: session) == nil)
            #expect(try await app.count("sessions") == 0)
            let home = try await app.send(.GET, "/", headers: ["Cookie": "session=\(session)"])
            #expect(!home.text.contains("user-email"))
        }
    }

    @Test func eachNonceSignsInOnce() async throws {
        try await TestApp.with { app in
            let state = try TestApp.newState()
            let token = try app.webToken(state: state, subject: "001.once")
            #expect(try await app.handle([("token", token)], state: state).status == .seeOther)
            let replay = try await app.handle([("token", token)], state: state)
            #expect(replay.status == .unauthorized)
            #expect(replay.setCookies["session"] == nil)
            #expect(try await app.count("sessions") == 1)
            #expect(try await app.count("used_nonces") == 1)
        }
    }

    /// The nonce is recorded with an insert-or-fail in the sign-in's own transaction: of two handles racing with
    /// the same token and cookie, one signs in and the other is 401.
    @Test func concurrentUsesOfOneNonceMakeOneSession() async throws {
        try await TestApp.with { app in
            let state = try TestApp.newState()
            let token = try app.webToken(state: state, subject: "001.race")
            for _ in 0..<3 {
                async let first = app.handle([("token", token)], state: state)
                async let second = app.handle([("token", token)], state: state)
                let statuses = [try await first.status, try await second.status]
                #expect(statuses.filter { $0 == .seeOther }.count <= 1)
                #expect(statuses.filter { $0 == .unauthorized }.count >= 1)
            }
            #expect(try await app.count("sessions") == 1)
            #expect(try await app.count("users") == 1)
        }
    }

    /// Two posts of one sign-in with its code, the second while the first waits for Apple: both find the nonce
    /// unused, the first spends the code and signs in, and Apple refuses the second's code. That is a second use of
    /// the nonce, 401, not a bad code (400). Found by an audit.
    @Test func aSecondUseWhoseCodeTheFirstSpentIs401() async throws {
        try await TestApp.with { app in
            let state = try TestApp.newState()
            let issued = try await app.webCode(state: state, subject: "001.spent", email: "spent@example.com")
            let fields = [("token", issued.idToken), ("code", issued.code)]
            await app.apple.setTokenLatency(0.5)
            async let first = app.handle(fields, state: state)
            try await Task.sleep(for: .milliseconds(200))
            let second = try await app.handle(fields, state: state)
            #expect(try await first.status == .seeOther)
            #expect(second.status == .unauthorized)
            #expect(second.text.contains("already been used"))
            #expect(try await app.count("sessions") == 1)
        }
    }

    /// The same, posted at the same moment: whichever hears Apple first, the one that does not sign in is 401.
    @Test func aSignInWithItsCodePostedTwiceAtOnceIsOneSessionAndOne401() async throws {
        try await TestApp.with { app in
            await app.apple.setTokenLatency(0.1)
            for round in 0..<5 {
                let state = try TestApp.newState()
                let issued = try await app.webCode(state: state, subject: "001.twice.\(round)", email: "twice@example.com")
                let fields = [("token", issued.idToken), ("code", issued.code)]
                async let first = app.handle(fields, state: state)
                async let second = app.handle(fields, state: state)
                let statuses = [try await first.status, try await second.status]
                #expect(statuses.sorted { $0.code < $1.code } == [.seeOther, .unauthorized], "round \(round): \(statuses)")
            }
            #expect(try await app.count("sessions") == 5)
        }
    }

    @Test func aUsedNonceStaysUsedAfterARestart() async throws {
        let first = try await TestApp.start()
        defer { try? FileManager.default.removeItem(at: first.directory) }
        let state = try TestApp.newState()
        let token = try first.webToken(state: state, subject: "001.restart")
        #expect(try await first.handle([("token", token)], state: state).status == .seeOther)
        await first.stop(keepFiles: true)
        try await TestApp.with(directory: first.directory) { second in
            #expect(try await second.handle([("token", token)], state: state).status == .unauthorized)
            let kept = try await second.server.services.database.readOne(SQL("SELECT used_at, expires_at FROM used_nonces")) {
                (try $0[0] as Date, try $0[1] as Date)
            }
            let expiry = try #require(kept).1.timeIntervalSince(try #require(kept).0)
            #expect((900...960).contains(expiry), "kept for the token's life, the leeway and the clocks' margin")
        }
    }

    /// The stand-in copies `nonce` from `/auth/authorize` into the identity token, as Apple does.
    @Test func standInCopiesTheNonceIntoTheToken() async throws {
        try await TestApp.with { app in
            let state = try TestApp.newState()
            let nonce = TestApp.nonce(forState: state)
            let form = TestApp.formEncode([
                ("client_id", TestApp.webClientID), ("redirect_uri", "http://127.0.0.1/login/siwa/callback"),
                ("scope", "name email"), ("response_type", "code id_token"), ("response_mode", "form_post"),
                ("state", state), ("nonce", nonce),
                ("name", "Jane Appleseed"), ("email", "bound@example.com"),
            ])
            let post = try await app.client.send(HTTPClientRequest(
                method: .POST, url: app.apple.baseURL + "/auth/authorize",
                headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array(form.utf8)
            ))
            #expect(post.status == .ok)
            let idToken = try #require(HiddenFields.parse(post.text).first { $0.0 == "id_token" }?.1)
            let identity = try await app.server.services.signIn.webVerifier?.verify(idToken, expecting: .exactly(nonce))
            #expect(identity?.nonce == nonce)
            #expect(try await app.handle([("token", idToken)], state: state).status == .seeOther)
        }
    }
}
