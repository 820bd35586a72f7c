import Foundation
import HTTPCore
import Testing
@testable import App

/// The sign-in rate limit over real sockets: behind a trusted proxy (`X-Forwarded-For`) each client has its own
/// bucket, shared by the three sign-in routes; 429 with `Retry-After` in JSON on the API and HTML on the web routes.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct SignInRateLimitTests {
    /// One sign-in a minute after the burst: no bucket refills while a test runs, however loaded the machine.
    static func with<T>(limit: Int = 1, burst: Int = 2, _ body: (TestApp) async throws -> T) async throws -> T {
        try await TestApp.with(configure: { configuration in
            configuration.trustProxy = true
            configuration.signInRateLimit = limit
            configuration.signInRateBurst = burst
        }, body)
    }

    static func signIn(_ app: TestApp, from client: String?) async throws -> HTTPClientResponse {
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        if let client { headers.add(name: "X-Forwarded-For", value: client) }
        let body = try JSONSerialization.data(withJSONObject: ["token": try app.identityToken()])
        return try await app.send(.POST, "/api/users/siwa", headers: headers, body: Array(body))
    }

    static func form(_ app: TestApp, _ path: String, from client: String) async throws -> HTTPClientResponse {
        try await app.send(.POST, path, headers: [
            "Content-Type": "application/x-www-form-urlencoded", "X-Forwarded-For": client, "Accept": "text/html",
        ], body: Array("state=x&id_token=y".utf8))
    }

    @Test func apiAnswers429JSONWithRetryAfterPerClient() async throws {
        try await Self.with { app in
            for _ in 0..<2 { #expect(try await Self.signIn(app, from: "203.0.113.1").status == .ok) }
            let refused = try await Self.signIn(app, from: "203.0.113.1")
            #expect(refused.status == .tooManyRequests)
            #expect(refused.headers["Retry-After"].flatMap(Int.init).map { (1...60).contains($0) } == true)
            #expect(refused.headers["Content-Type"]?.hasPrefix("application/json") == true)
            let body = try refused.json()
            #expect(body["error"] as? Bool == true)
            #expect((body["reason"] as? String)?.hasPrefix("Too many sign-in attempts") == true)
            #expect(try await Self.signIn(app, from: "203.0.113.2").status == .ok)
            #expect(try await app.send(.GET, "/health", headers: ["X-Forwarded-For": "203.0.113.1"]).status == .ok)
            #expect(try await app.count("users") == 3)
        }
    }

    @Test func webRoutesShareTheBucketAndAnswerHTML() async throws {
        try await Self.with { app in
            #expect(try await Self.signIn(app, from: "2001:db8:5:6::1").status == .ok)
            let callback = try await Self.form(app, "/login/siwa/callback", from: "2001:db8:5:6::2")
            #expect(callback.status == .unauthorized)  // the same /64: its second sign-in, refused for the state
            for path in ["/login/siwa/callback", "/login/siwa/handle"] {
                let refused = try await Self.form(app, path, from: "2001:db8:5:6::3")
                #expect(refused.status == .tooManyRequests)
                #expect(refused.headers["Retry-After"] != nil)
                #expect(refused.headers["Content-Type"]?.hasPrefix("text/html") == true)
                #expect(refused.text.contains("Too many sign-in attempts"))
            }
            #expect(try await Self.form(app, "/login/siwa/handle", from: "2001:db8:5:7::1").status != .tooManyRequests)
        }
    }

    @Test func loopbackWithoutForwardedAddressIsNotLimited() async throws {
        try await Self.with(burst: 1) { app in
            for _ in 0..<4 {
                let response = try await Self.signIn(app, from: nil)
                #expect(response.status == .ok)
            }
        }
    }

    @Test func zeroTurnsTheLimitOff() async throws {
        try await Self.with(limit: 0, burst: 1) { app in
            for _ in 0..<4 {
                let response = try await Self.signIn(app, from: "198.51.100.4")
                #expect(response.status == .ok)
            }
        }
    }
}
