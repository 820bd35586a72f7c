import HTTPCore
import Testing
@testable import Web

struct RateLimitMiddlewareTests {
    static func app(trustProxy: Bool, burst: Int = 2, clock: ManualClock = ManualClock()) -> Application {
        let app = Application.fixture(trustProxy: trustProxy)
        let limit = RateLimitMiddleware(limiter: RateLimiter(perMinute: 60, burst: burst, now: clock.now),
                                        reason: "Slow down: {seconds} s.")
        app.grouped(limit).post("api", "signin") { _ in "ok" }
        app.grouped(limit).post("page", "signin") { _ in "ok" }
        app.post("free") { _ in "free" }
        return app
    }

    static func peer(_ address: String) -> ConnectionInfo { ConnectionInfo(remoteAddress: address, isSecure: false) }

    @Test func apiRouteAnswersJSON429WithRetryAfter() async throws {
        let app = Self.app(trustProxy: false)
        let client = Self.peer("203.0.113.7:40000")
        for _ in 0..<2 { #expect(try await app.testing.send(.POST, "/api/signin", connection: client).status == .ok) }
        let refused = try await app.testing.send(.POST, "/api/signin", connection: client)
        #expect(refused.status == .tooManyRequests)
        #expect(refused.headers["Retry-After"] == "1")
        #expect(refused.headers["Content-Type"]?.hasPrefix("application/json") == true)
        #expect(try refused.decode(ErrorBody.self) == ErrorBody(error: true, reason: "Slow down: 1 s."))
        #expect(try await app.testing.send(.POST, "/free", connection: client).status == .ok)
        let otherPort = Self.peer("203.0.113.7:40001")
        #expect(try await app.testing.send(.POST, "/api/signin", connection: otherPort).status == .tooManyRequests)
        #expect(try await app.testing.send(.POST, "/api/signin", connection: Self.peer("203.0.113.8:1")).status == .ok)
    }

    @Test func browserGetsAnHTML429() async throws {
        let app = Self.app(trustProxy: false, burst: 1)
        let client = Self.peer("[2001:db8::1]:5")
        #expect(try await app.testing.send(.POST, "/page/signin", connection: client).status == .ok)
        let refused = try await app.testing.send(.POST, "/page/signin", headers: ["Accept": "text/html"],
                                                 connection: Self.peer("[2001:db8::2]:6"))
        #expect(refused.status == .tooManyRequests)
        #expect(refused.headers["Retry-After"] == "1")
        #expect(refused.headers["Content-Type"]?.hasPrefix("text/html") == true)
        #expect(refused.text.contains("429") && refused.text.contains("Slow down: 1 s."))
    }

    @Test func bucketsAreSharedByTheRoutesOfOneMiddleware() async throws {
        let app = Self.app(trustProxy: false)
        let client = Self.peer("198.51.100.1:1")
        #expect(try await app.testing.send(.POST, "/api/signin", connection: client).status == .ok)
        #expect(try await app.testing.send(.POST, "/page/signin", connection: client).status == .ok)
        #expect(try await app.testing.send(.POST, "/api/signin", connection: client).status == .tooManyRequests)
    }

    @Test func loopbackPeersAreNotLimited() async throws {
        let app = Self.app(trustProxy: false, burst: 1)
        for peer in ["127.0.0.1:5", "[::1]:5", "127.9.9.9:5"] {
            for _ in 0..<5 {
                #expect(try await app.testing.send(.POST, "/api/signin", connection: Self.peer(peer)).status == .ok)
            }
        }
    }

    @Test func behindATrustedProxyEachForwardedClientHasItsBucket() async throws {
        let app = Self.app(trustProxy: true, burst: 1)
        let proxy = ApplicationTester.loopback
        let first: HTTPHeaders = ["X-Forwarded-For": "203.0.113.1"]
        let second: HTTPHeaders = ["X-Forwarded-For": "198.51.100.200, 203.0.113.2"]
        #expect(try await app.testing.send(.POST, "/api/signin", headers: first, connection: proxy).status == .ok)
        #expect(try await app.testing.send(.POST, "/api/signin", headers: first, connection: proxy).status == .tooManyRequests)
        #expect(try await app.testing.send(.POST, "/api/signin", headers: second, connection: proxy).status == .ok)
        let spoofed: HTTPHeaders = ["X-Forwarded-For": "198.51.100.9, 203.0.113.1"]
        #expect(try await app.testing.send(.POST, "/api/signin", headers: spoofed, connection: proxy).status == .tooManyRequests)
        #expect(try await app.testing.send(.POST, "/api/signin", connection: proxy).status == .ok)
    }

    @Test func withoutTrustTheForwardedHeaderIsIgnored() async throws {
        let app = Self.app(trustProxy: false, burst: 1)
        let client = Self.peer("203.0.113.50:1")
        #expect(try await app.testing.send(.POST, "/api/signin", headers: ["X-Forwarded-For": "10.0.0.1"],
                                           connection: client).status == .ok)
        #expect(try await app.testing.send(.POST, "/api/signin", headers: ["X-Forwarded-For": "10.0.0.2"],
                                           connection: client).status == .tooManyRequests)
    }

    @Test func theClientIsServedAgainOnceTheWaitIsOver() async throws {
        let clock = ManualClock()
        let app = Self.app(trustProxy: false, burst: 1, clock: clock)
        let client = Self.peer("203.0.113.9:1")
        #expect(try await app.testing.send(.POST, "/api/signin", connection: client).status == .ok)
        let refused = try await app.testing.send(.POST, "/api/signin", connection: client)
        clock.advance(seconds: Double(refused.headers["Retry-After"].flatMap(Int.init) ?? 0))
        #expect(try await app.testing.send(.POST, "/api/signin", connection: client).status == .ok)
    }
}
