import AppleID
import FakeApple
import Foundation
import HTTPCore
import TestSupport
import Testing
@testable import App

/// Apple's JWKS endpoint down, slow, answering garbage or no usable key, with a cold and a warm key cache: the
/// sign-in gets a 503 with `Retry-After` only when no key is cached, the log names the cause, everything else
/// keeps working, and the server recovers by itself when the endpoint does.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct AppleKeysFaultTests {
    /// The faults that leave a fetch without a usable key set, by name.
    static let unusableAnswers: [(String, AppleProxy.Fault, String)] = [
        ("refused", .refused, "connectFailed"),
        ("not JSON", .reply(status: "200 OK", body: "<html>maintenance</html>"), "not a usable key set"),
        ("wrong JSON", .reply(status: "200 OK", body: #"{"status":"ok"}"#), "not a usable key set"),
        ("truncated", .truncated(body: #"{"keys":[{"kty":"RSA","kid":"x","#), "JWKS fetch failed"),
        ("only EC keys", .reply(status: "200 OK", body: #"{"keys":[{"kty":"EC","kid":"e1","crv":"P-256","#
            + #""x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}]}"#),
         "JWKS fetch failed"),
        ("unknown kty", .reply(status: "200 OK", body: #"{"keys":[{"kty":"OKP","kid":"o1","crv":"Ed25519","x":"AA"}]}"#),
         "JWKS fetch failed"),
        ("empty list", .reply(status: "200 OK", body: #"{"keys":[]}"#), "JWKS fetch failed"),
        ("HTTP 500", .reply(status: "500 Internal Server Error", body: "{}"), "HTTP status 500"),
    ]

    /// Runs `body` with the server behind an `AppleProxy` (starting with `fault`), logging into `log`, on `clock`.
    private func with(fault: AppleProxy.Fault = .none, clock: TestClock, log: LogCapture,
                      _ body: (TestApp, AppleProxy) async throws -> Void) async throws {
        var proxy: AppleProxy?
        try await TestApp.with(logger: log.logger(), clock: clock, configure: { configuration in
            let port = Int(configuration.appleBaseURL.split(separator: ":").last ?? "") ?? 0
            do {
                proxy = try AppleProxy(upstreamPort: port)
                try proxy?.set(fault)
            } catch {
                Issue.record("AppleProxy could not start with \(fault): \(error)")
            }
            configuration.appleBaseURL = proxy?.baseURL ?? configuration.appleBaseURL
        }) { app in
            try await body(app, try #require(proxy))
        }
    }

    private func signIn(_ app: TestApp, clock: TestClock, subject: String) async throws -> HTTPClientResponse {
        try await app.sendJSON(.POST, "/api/users/siwa", [
            "token": try app.identityToken(subject: subject, email: "\(subject)@example.com", issuedAt: clock.now),
        ])
    }

    @Test func coldCacheEveryUnusableAnswerIs503WithRetryAfterAndRecovers() async throws {
        let clock = TestClock(Date())
        let log = LogCapture()
        try await with(fault: .refused, clock: clock, log: log) { app, proxy in
            for (name, fault, logged) in Self.unusableAnswers {
                try proxy.set(fault)
                clock.advance(by: 11)
                let token = try app.identityToken(subject: "001.cold", issuedAt: clock.now)
                let response = try await app.sendJSON(.POST, "/api/users/siwa", ["token": token])
                #expect(response.status == .serviceUnavailable, "\(name)")
                #expect(response.headers["Retry-After"] == "\(AppleIDError.keysRetryAfterSeconds)", "\(name)")
                #expect(try response.json()["error"] as? Bool == true, "\(name)")
                #expect(log.contains("JWKS fetch failed", logged, "no keys cached"), "\(name): \(log.all.suffix(4))")
                #expect(log.contains("identity token refused", "keysUnavailable"), "\(name)")
                // A dependency gone for a while: a warning, not an error for every request (found by an audit).
                #expect(log.all.contains { $0.hasPrefix("warning ") && $0.contains("POST /api/users/siwa -> 503") },
                        "\(name)")
                #expect(!log.all.contains { $0.hasPrefix("error ") && $0.contains("-> 503") }, "\(name)")
                #expect(!log.text.contains(token), "\(name): the token must not be logged")
                #expect(try await app.send(.GET, "/health").status == .ok, "\(name)")
                // A notification from Apple meets the same missing keys, and gets the same answer.
                let payload = try FakeAppleNotifier.payload(event: "email-disabled", subject: "001.cold",
                                                            audience: TestApp.iosClientID, email: nil, keys: app.keys,
                                                            now: clock.now)
                let notified = try await app.sendJSON(.POST, "/api/apple/notifications", ["payload": payload])
                #expect(notified.status == .serviceUnavailable, "\(name)")
                #expect(notified.headers["Retry-After"] == "\(AppleIDError.keysRetryAfterSeconds)", "\(name)")
            }
            #expect(try await app.count("users") == 0)

            try proxy.set(.none)
            clock.advance(by: 11)
            #expect(try await signIn(app, clock: clock, subject: "001.cold").status == .ok, "recovers without a restart")
            #expect(log.contains("JWKS fetched"))
        }
    }

    @Test func coldCacheSlowEndpointIs503AfterTheClientTimeoutWhileHealthAnswers() async throws {
        let clock = TestClock(Date())
        let log = LogCapture()
        try await with(fault: .slow(seconds: 12), clock: clock, log: log) { app, proxy in
            clock.advance(by: 11)
            let started = Date()
            // The test's own client must outwait the server's (both read timeouts are 10 s by default).
            let patient = HTTPClient(configuration: HTTPClient.Configuration(timeout: .seconds(60)))
            let token = try app.identityToken(subject: "001.slow", issuedAt: clock.now)
            let slow = Task {
                try await patient.send(HTTPClientRequest(method: .POST, url: app.baseURL + "/api/users/siwa",
                                                         headers: ["Content-Type": "application/json"],
                                                         body: Array("{\"token\":\"\(token)\"}".utf8)))
            }
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await app.send(.GET, "/health").status == .ok, "the server keeps serving during a slow fetch")
            let response = try await slow.value
            #expect(response.status == .serviceUnavailable)
            #expect(response.headers["Retry-After"] != nil)
            #expect(Date().timeIntervalSince(started) >= 5, "the 503 comes from the client's read timeout")
            #expect(log.contains("JWKS fetch failed", "readTimeout", "no keys cached"), "\(log.all.suffix(4))")

            try proxy.set(.none)
            clock.advance(by: 11)
            #expect(try await signIn(app, clock: clock, subject: "001.slow").status == .ok)
        }
    }

    @Test func warmCacheStaleKeysKeepSigningInThroughEveryFaultAndRefreshAfterwards() async throws {
        let clock = TestClock(Date())
        let log = LogCapture()
        try await with(clock: clock, log: log) { app, proxy in
            let first = try await signIn(app, clock: clock, subject: "001.warm.0")
            #expect(first.status == .ok)
            let bearer = try #require(try first.json()["value"] as? String)

            let faults = Self.unusableAnswers.map { ($0.0, $0.1) } + [("slow", .slow(seconds: 12))]
            for (index, (name, fault)) in faults.enumerated() {
                try proxy.set(fault)
                clock.advance(by: 2 * 3600)  // past any JWKS lifetime: the keys are stale, a refetch starts
                let started = Date()
                let response = try await signIn(app, clock: clock, subject: "001.warm.\(index + 1)")
                #expect(response.status == .ok, "\(name): a user whose key is cached still signs in")
                #expect(Date().timeIntervalSince(started) < 5, "\(name): a known kid never waits for the network")
                let me = try await app.sendJSON(.GET, "/api/users/me", [:], bearer: bearer)
                #expect(me.status == .ok, "\(name): an existing bearer keeps working")
                #expect(try await app.send(.GET, "/health").status == .ok, "\(name)")
                if case .slow = fault { continue }
                try await waitUntil { log.contains("JWKS fetch failed", "keeping 1 cached keys, expired") }
                #expect(log.contains("JWKS fetch failed", "keeping 1 cached keys"), "\(name): \(log.all.suffix(3))")
            }
            #expect(try await app.count("users") == faults.count + 1)

            try proxy.set(.none)
            let fetchesBefore = proxy.keyFetches
            let fetchedBefore = log.all.filter { $0.contains("JWKS fetched") }.count
            let deadline = Date().addingTimeInterval(40)
            var round = 0
            while log.all.filter({ $0.contains("JWKS fetched") }).count == fetchedBefore, Date() < deadline {
                round += 1
                clock.advance(by: 11)  // past the refetch interval; a slow fetch may still be running
                #expect(try await signIn(app, clock: clock, subject: "001.warm.back.\(round)").status == .ok)
                try await Task.sleep(for: .milliseconds(500))
            }
            #expect(log.all.filter { $0.contains("JWKS fetched") }.count > fetchedBefore,
                    "the stale set is refreshed once the endpoint is back")
            #expect(proxy.keyFetches > fetchesBefore)
        }
    }

    @Test func appleTokenEndpointDownIs503WithRetryAfterAndWritesNothingThenRecovers() async throws {
        let log = LogCapture()
        try await TestApp.with(logger: log.logger()) { app in
            await app.apple.simulateOutage(true)
            let issued = try await app.apple.issueAuthorizationCode(clientID: TestApp.iosClientID, subject: "001.down",
                                                                    email: "down@example.com")
            let response = try await app.sendJSON(.POST, "/api/users/siwa", ["token": issued.idToken,
                                                                              "authorizationCode": issued.code])
            #expect(response.status == .serviceUnavailable)
            #expect(response.headers["Retry-After"] == "\(SignInFailure.appleRetryAfterSeconds)")
            #expect(log.contains("authorization code exchange failed", "unreachable"), "\(log.all.suffix(3))")
            #expect(!log.text.contains(issued.code))
            #expect(try await app.count("users") == 0)

            await app.apple.simulateOutage(false)
            let retried = try await app.sendJSON(.POST, "/api/users/siwa", ["token": issued.idToken,
                                                                             "authorizationCode": issued.code])
            #expect(retried.status == .ok, "the same code works once Apple is back")
        }
    }

    /// Polls `condition` for up to 20 s (background fetches on a loaded machine).
    private func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(20)
        while !condition(), Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
    }
}
