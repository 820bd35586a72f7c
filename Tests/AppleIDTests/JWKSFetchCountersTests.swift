import Foundation
import HTTPCore
import Testing
import TestSupport
@testable import AppleID

/// Each JWKS fetch is counted once, by how it ended.
struct JWKSFetchCountersTests {
    let server: JWKSTestServer
    let clock = JWKSTestClock()
    let log = LogCapture()

    init() throws { server = try JWKSTestServer() }

    func makeCache(url: String? = nil) -> JWKSCache<String> {
        JWKSCache(url: url ?? server.url, client: HTTPClient(), parse: JWKSCacheTests.parse, clock: { [clock] in clock.now },
                  logger: log.logger())
    }

    func counts(_ cache: JWKSCache<String>) -> [JWKSFetchOutcome: Int] {
        Dictionary(uniqueKeysWithValues: JWKSFetchOutcome.allCases.map { ($0, cache.fetches[$0]) })
    }

    @Test func eachOutcomeIsCountedOnce() async throws {
        defer { server.stop() }
        let cache = makeCache()
        await cache.refresh()
        #expect(counts(cache) == [.ok: 1, .httpError: 0, .invalid: 0, .timeout: 0, .tlsError: 0, .networkError: 0])

        server.set { $0.status = "500 Internal Server Error" }
        clock.advance(by: 11)
        await cache.refresh()
        server.set {
            $0.status = "200 OK"
            $0.body = Array("not json".utf8)
        }
        clock.advance(by: 11)
        await cache.refresh()
        server.set { $0.body = Array("{\"keys\":[]}".utf8) }
        clock.advance(by: 11)
        await cache.refresh()
        server.stop()
        clock.advance(by: 11)
        await cache.refresh()
        #expect(counts(cache) == [.ok: 1, .httpError: 1, .invalid: 2, .timeout: 0, .tlsError: 0, .networkError: 1])
    }

    @Test func aRateLimitedRefreshIsNotAFetch() async throws {
        defer { server.stop() }
        let cache = makeCache()
        await cache.refresh()
        await cache.refresh()
        #expect(cache.fetches[.ok] == 1)
        #expect(server.fetches == 1)
    }

    @Test func clientErrorsMapToTheirOutcome() {
        #expect(JWKSFetchOutcome(HTTPClientError(.readTimeout, "")) == .timeout)
        #expect(JWKSFetchOutcome(HTTPClientError(.connectTimeout, "")) == .timeout)
        #expect(JWKSFetchOutcome(HTTPClientError(.poolTimeout, "")) == .timeout, "as AppleAuthClient counts it")
        #expect(JWKSFetchOutcome(HTTPClientError(.tlsHandshakeFailed, "")) == .tlsError)
        #expect(JWKSFetchOutcome(HTTPClientError(.connectFailed, "")) == .networkError)
        #expect(JWKSFetchOutcome(CancellationError()) == .networkError)
    }

    @Test(arguments: [("invalid_grant", AppleAuthCallCounters.Outcome.invalidGrant), ("invalid_client", .invalidClient),
                      ("unsupported_grant_type", .unsupportedGrantType), ("ok", .otherAppleError),
                      ("server_error", .otherAppleError), ("made_up", .otherAppleError)])
    func appleErrorCodesMapToBoundedOutcomes(_ code: String, _ outcome: AppleAuthCallCounters.Outcome) {
        #expect(AppleAuthCallCounters.Outcome(appleErrorCode: code) == outcome)
    }
}
