import HTTPCore
import Testing
@testable import App

/// siwa's server gives the answers its HTTP parser writes the same security headers as the application's.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct ServerRefusalHeadersTests {
    @Test func aBodyOverTheLimitGets413WithTheSecurityHeaders() async throws {
        let app = try await TestApp.start { configuration in configuration.maxBodySize = 16 }
        let refused = try await app.send(.POST, "/api/users/siwa", headers: ["Content-Type": "application/json"],
                                         body: Array(repeating: UInt8(ascii: " "), count: 17))
        let answered = try await app.send(.GET, "/health")
        #expect(refused.status == .payloadTooLarge)
        for name in ["X-Content-Type-Options", "Referrer-Policy", "Content-Security-Policy", "X-Frame-Options"] {
            #expect(refused.headers[name] != nil, "\(name)")
            #expect(refused.headers[name] == answered.headers[name], "\(name)")
        }
        #expect(refused.headers["Strict-Transport-Security"] == nil, "HSTS only over HTTPS")
        await app.stop()
    }
}
