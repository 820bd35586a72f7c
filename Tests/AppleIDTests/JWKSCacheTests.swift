import Foundation
import HTTPCore
import Testing
import TestSupport
@testable import AppleID

/// The cache against a real loopback JWKS server, with an injected clock.
struct JWKSCacheTests {
    let server: JWKSTestServer
    let clock = JWKSTestClock()
    let log = LogCapture()

    init() throws { server = try JWKSTestServer() }

    /// kid → the key's `n`, parsed with Foundation only (no JOSE).
    static let parse: JWKSCache<String>.Parse = { body in
        guard let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
              let keys = object["keys"] as? [[String: Any]] else { throw CocoaError(.coderReadCorrupt) }
        var result: [String: String] = [:]
        for key in keys {
            guard let kid = key["kid"] as? String, let n = key["n"] as? String else { continue }
            result[kid] = n
        }
        return result
    }

    func makeCache(store: JWKSCacheStore? = nil, url: String? = nil) -> JWKSCache<String> {
        JWKSCache(url: url ?? server.url, client: HTTPClient(), parse: Self.parse, clock: { [clock] in clock.now },
                  store: store, logger: log.logger())
    }

    func attempts(_ cache: JWKSCache<String>) -> Int {
        JWKSFetchOutcome.allCases.reduce(0) { $0 + cache.fetches[$1] }
    }

    func reason(_ body: () async throws -> String) async -> JWKSCacheError.Reason? {
        do {
            _ = try await body()
            return nil
        } catch {
            return (error as? JWKSCacheError)?.reason
        }
    }

    @Test(arguments: [
        ("Cache-Control: public, max-age=600", 600.0),
        ("Cache-Control: max-age=10", 300),
        ("Cache-Control: max-age=604800", 86_400),
        (nil, 3_600),
    ] as [(String?, TimeInterval)])
    func keepsKeysForClampedMaxAge(_ header: String?, _ lifetime: TimeInterval) async throws {
        defer { server.stop() }
        server.set { $0.headers = header.map { [$0] } ?? [] }
        let cache = makeCache()
        #expect(try await cache.key(for: "a") == "key-a")
        clock.advance(by: lifetime - 1)
        #expect(try await cache.key(for: "a") == "key-a")
        await cache.settled()
        #expect(server.fetches == 1)
        clock.advance(by: 2)
        #expect(try await cache.key(for: "a") == "key-a")
        await cache.settled()
        #expect(server.fetches == 2)
    }

    @Test func manyLookupsOneFetch() async throws {
        defer { server.stop() }
        let cache = makeCache()
        for _ in 0..<50 { #expect(try await cache.key(for: "a") == "key-a") }
        #expect(server.fetches == 1)
    }

    /// The first fetch does not count against the refetch interval: a key rotated in a moment later is found.
    @Test func rotationRightAfterTheFirstFetchIsFoundAfterOneRefetch() async throws {
        defer { server.stop() }
        let cache = makeCache()
        #expect(try await cache.key(for: "a") == "key-a")
        server.set { $0.body = JWKSTestServer.jwks(["a": "key-a", "b": "key-b"]) }
        clock.advance(by: 1)
        #expect(try await cache.key(for: "b") == "key-b")
        #expect(server.fetches == 2)
        #expect(try await cache.key(for: "a") == "key-a")
        #expect(server.fetches == 2)
    }

    /// Nor does the refresh of an expired set, or a warm-up `refresh()`.
    @Test func rotationRightAfterARefreshIsFoundAfterOneRefetch() async throws {
        defer { server.stop() }
        let cache = makeCache()
        await cache.refresh()
        #expect(server.fetches == 1)
        clock.advance(by: 3_601)
        #expect(try await cache.key(for: "a") == "key-a")
        await cache.settled()
        #expect(server.fetches == 2)
        server.set { $0.body = JWKSTestServer.jwks(["b": "key-b"]) }
        clock.advance(by: 1)
        #expect(try await cache.key(for: "b") == "key-b")
        #expect(server.fetches == 3)
    }

    @Test func thousandConcurrentUnknownKidsCostOneFetch() async throws {
        defer { server.stop() }
        let cache = makeCache()
        #expect(try await cache.key(for: "a") == "key-a")
        clock.advance(by: 11)
        server.set { $0.delay = .milliseconds(200) }
        let reasons = await withTaskGroup(of: JWKSCacheError.Reason?.self) { group in
            for _ in 0..<1000 { group.addTask { await reason { try await cache.key(for: "bogus") } } }
            return await group.reduce(into: [JWKSCacheError.Reason?]()) { $0.append($1) }
        }
        #expect(reasons.count == 1000)
        #expect(reasons.allSatisfy { $0 == .unknownKeyID })
        #expect(server.fetches == 2)
    }

    @Test func thousandConcurrentFirstLookupsCostOneFetch() async throws {
        defer { server.stop() }
        server.set { $0.delay = .milliseconds(200) }
        let cache = makeCache()
        let values = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<1000 { group.addTask { try? await cache.key(for: "a") } }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(values.count == 1000)
        #expect(values.allSatisfy { $0 == "key-a" })
        #expect(server.fetches == 1)
    }

    @Test func unknownKidRefetchIsRateLimited() async throws {
        defer { server.stop() }
        let cache = makeCache()
        #expect(try await cache.key(for: "a") == "key-a")
        #expect(await reason { try await cache.key(for: "x") } == .unknownKeyID)
        #expect(server.fetches == 2)
        clock.advance(by: 9.9)
        #expect(await reason { try await cache.key(for: "y") } == .unknownKeyID)
        #expect(server.fetches == 2)
        clock.advance(by: 0.1)
        #expect(await reason { try await cache.key(for: "x") } == .unknownKeyID)
        #expect(server.fetches == 3)
    }

    @Test func withoutKeysTheFirstFetchIsRetriedAtMostOncePerInterval() async throws {
        server.stop()
        let cache = makeCache()
        #expect(await reason { try await cache.key(for: "a") } == .keysUnavailable)
        clock.advance(by: 9.9)
        #expect(await reason { try await cache.key(for: "a") } == .keysUnavailable)
        #expect(attempts(cache) == 1)
        clock.advance(by: 0.1)
        #expect(await reason { try await cache.key(for: "a") } == .keysUnavailable)
        #expect(attempts(cache) == 2)
    }

    @Test func outageKeepsCachedKeysEvenExpired() async throws {
        let cache = makeCache()
        #expect(try await cache.key(for: "a") == "key-a")
        server.stop()
        clock.advance(by: 2 * 86_400)
        #expect(try await cache.key(for: "a") == "key-a")
        await cache.settled()
        clock.advance(by: 11)
        // Apple could not be asked whether "b" is a key it rotated in: 503, not a refusal. Found by an audit.
        #expect(await reason { try await cache.key(for: "b") } == .keysUnavailable)
        #expect(try await cache.key(for: "a") == "key-a")
        #expect(log.all.contains { $0.contains("JWKS fetch failed") && $0.contains("keeping 1 cached keys, expired") })
    }

    /// An unknown `kid` that waited for a fetch under way (the refresh of an expired set) which failed does not
    /// start another: it is a 503 after one fetch's wait, not two. Found by a black-box review: with Apple hanging,
    /// such a sign-in waited twice `APPLE_TIMEOUT`, and Apple was asked twice within 3 s.
    @Test func anUnknownKidThatWaitedForAFailedFetchDoesNotStartAnother() async throws {
        defer { server.stop() }
        let cache = makeCache()
        #expect(try await cache.key(for: "a") == "key-a")
        clock.advance(by: 3_601)
        server.set {
            $0.status = "500 Internal Server Error"
            $0.delay = .milliseconds(300)
        }
        #expect(try await cache.key(for: "a") == "key-a", "a known kid does not wait; the refresh starts")
        #expect(await reason { try await cache.key(for: "b") } == .keysUnavailable)
        #expect(server.fetches == 2, "the first fetch and the failed refresh only")
        // Once that fetch is over, a later unknown kid is a refetch of its own.
        server.set {
            $0.status = "200 OK"
            $0.delay = .zero
            $0.body = JWKSTestServer.jwks(["a": "key-a", "b": "key-b"])
        }
        #expect(try await cache.key(for: "b") == "key-b")
        #expect(server.fetches == 3)
    }

    @Test func noKeysAtAllIsKeysUnavailable() async throws {
        server.stop()
        let cache = makeCache()
        #expect(await reason { try await cache.key(for: "a") } == .keysUnavailable)
    }

    @Test(arguments: [("500 Internal Server Error", JWKSTestServer.jwks(["a": "key-a"])),
                      ("200 OK", Array("not json".utf8)), ("200 OK", Array("{\"keys\":[]}".utf8))])
    func unusableResponseIsKeysUnavailable(_ status: String, _ body: [UInt8]) async throws {
        defer { server.stop() }
        server.set {
            $0.status = status
            $0.body = body
        }
        let cache = makeCache()
        #expect(await reason { try await cache.key(for: "a") } == .keysUnavailable)
        #expect(server.fetches == 1)
    }

    @Test func badFetchKeepsGoodKeys() async throws {
        defer { server.stop() }
        let cache = makeCache()
        #expect(try await cache.key(for: "a") == "key-a")
        server.set { $0.body = Array("garbage".utf8) }
        clock.advance(by: 11)
        #expect(await reason { try await cache.key(for: "b") } == .keysUnavailable)
        #expect(server.fetches == 2)
        #expect(try await cache.key(for: "a") == "key-a")
        // Once Apple's set is had again, a kid it lacks is refused.
        server.set { $0.body = JWKSTestServer.jwks(["a": "key-a"]) }
        clock.advance(by: 11)
        #expect(await reason { try await cache.key(for: "b") } == .unknownKeyID)
        #expect(server.fetches == 3)
    }

    /// The wall clock set back (NTP correcting a clock that ran ahead, a VM restored) does not hold refetches back:
    /// a key Apple rotates in 20 s after a step back of an hour is fetched at once. Found by a review: no refetch
    /// was made for the hour, and every token signed with the new key was refused.
    @Test func aClockSetBackDoesNotHoldBackTheRefetchOfAnUnknownKid() async throws {
        defer { server.stop() }
        let cache = makeCache()
        #expect(try await cache.key(for: "a") == "key-a")
        #expect(await reason { try await cache.key(for: "x") } == .unknownKeyID)
        #expect(server.fetches == 2)
        clock.advance(by: -3_600)
        clock.advance(by: 20)
        server.set { $0.body = JWKSTestServer.jwks(["a": "key-a", "b": "key-b"]) }
        #expect(try await cache.key(for: "b") == "key-b")
        #expect(server.fetches == 3)
        #expect(await reason { try await cache.key(for: "y") } == .unknownKeyID)
        #expect(await reason { try await cache.key(for: "z") } == .unknownKeyID)
        #expect(server.fetches == 3, "still at most one refetch per interval after the step")
    }

    /// The same for the first fetch's retry, Apple unreachable at start.
    @Test func aClockSetBackDoesNotHoldBackTheFirstFetchsRetry() async throws {
        defer { server.stop() }
        server.set { $0.status = "500 Internal Server Error" }
        let cache = makeCache()
        #expect(await reason { try await cache.key(for: "a") } == .keysUnavailable)
        #expect(server.fetches == 1)
        clock.advance(by: -3_600)
        clock.advance(by: 20)
        server.set { $0.status = "200 OK" }
        #expect(try await cache.key(for: "a") == "key-a")
        #expect(server.fetches == 2)
    }

    /// A set the clock now puts more than the longest lifetime (24 h) before its fetch is refreshed, served
    /// meanwhile; one set back by less stays fresh for its lifetime.
    @Test func aSetFromBeyondTheLongestLifetimeIsRefreshed() async throws {
        defer { server.stop() }
        let cache = makeCache()
        #expect(try await cache.key(for: "a") == "key-a")
        clock.advance(by: -3_600)
        #expect(try await cache.key(for: "a") == "key-a")
        await cache.settled()
        #expect(server.fetches == 1)
        clock.advance(by: -JWKSCachePolicy().maximumLifetime)
        #expect(try await cache.key(for: "a") == "key-a")
        await cache.settled()
        #expect(server.fetches == 2)
    }
}
