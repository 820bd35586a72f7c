import Foundation
import HTTPCore
import Synchronization
import Testing
import TestSupport
@testable import AppleID

/// The persistence hook: seeded before any fetch, saved after each fetch that parsed.
struct JWKSCacheStoreTests {
    final class MemoryStore: Sendable {
        let state: Mutex<(stored: [UInt8]?, loads: Int, saves: [[UInt8]])>
        init(_ stored: [UInt8]?) { state = Mutex((stored, 0, [])) }

        var store: JWKSCacheStore {
            JWKSCacheStore(
                load: { self.state.withLock { $0.loads += 1; return $0.stored } },
                save: { body in self.state.withLock { $0.stored = body; $0.saves.append(body) } })
        }
    }

    let server: JWKSTestServer
    let clock = JWKSTestClock()
    let log = LogCapture()

    init() throws { server = try JWKSTestServer() }

    func makeCache(_ store: MemoryStore) -> JWKSCache<String> {
        JWKSCache(url: server.url, client: HTTPClient(), parse: JWKSCacheTests.parse, clock: { [clock] in clock.now },
                  store: store.store, logger: log.logger())
    }

    @Test func seedServesDuringOutage() async throws {
        server.stop()
        let memory = MemoryStore(JWKSTestServer.jwks(["a": "stored-a"]))
        let cache = makeCache(memory)
        #expect(try await cache.key(for: "a") == "stored-a")
        await cache.settled()
        #expect(try await cache.key(for: "a") == "stored-a")
        #expect(memory.state.withLock { $0.loads } == 1)
        #expect(memory.state.withLock { $0.saves }.isEmpty)
    }

    @Test func seedIsReplacedAndSavedAfterFetch() async throws {
        defer { server.stop() }
        let fresh = JWKSTestServer.jwks(["a": "fresh-a", "b": "fresh-b"])
        server.set { $0.body = fresh }
        let memory = MemoryStore(JWKSTestServer.jwks(["a": "stored-a"]))
        let cache = makeCache(memory)
        #expect(try await cache.key(for: "a") == "stored-a")
        await cache.settled()
        #expect(server.fetches == 1)
        #expect(try await cache.key(for: "a") == "fresh-a")
        #expect(memory.state.withLock { $0.saves } == [fresh])
    }

    @Test func savedAfterEachGoodFetchOnly() async throws {
        defer { server.stop() }
        let memory = MemoryStore(nil)
        let cache = makeCache(memory)
        #expect(try await cache.key(for: "a") == "key-a")
        server.set { $0.body = Array("{\"keys\": 3}".utf8) }
        clock.advance(by: 11)
        _ = try? await cache.key(for: "b")
        let rotated = JWKSTestServer.jwks(["b": "key-b"])
        server.set { $0.body = rotated }
        clock.advance(by: 11)
        #expect(try await cache.key(for: "b") == "key-b")
        #expect(server.fetches == 3)
        #expect(memory.state.withLock { $0.saves } == [JWKSTestServer.jwks(["a": "key-a"]), rotated])
    }

    @Test func unusableSeedIsIgnored() async throws {
        server.stop()
        let memory = MemoryStore(Array("corrupt".utf8))
        let cache = makeCache(memory)
        let error = await #expect(throws: JWKSCacheError.self) { try await cache.key(for: "a") }
        #expect(error?.reason == .keysUnavailable)
    }

    @Test func logsKidsButNeverKeysOrBodies() async throws {
        defer { server.stop() }
        server.set { $0.body = JWKSTestServer.jwks(["a": "SECRET-MATERIAL"]) }
        let cache = JWKSCache(url: server.url, client: HTTPClient(), parse: JWKSCacheTests.parse,
                              clock: { [clock] in clock.now }, logger: log.logger())
        #expect(try await cache.key(for: "a") == "SECRET-MATERIAL")
        #expect(log.all.contains { $0.contains("JWKS fetched") && $0.contains("a") })
        #expect(!log.all.contains { $0.contains("SECRET-MATERIAL") || $0.contains("\"keys\"") })
    }

    /// The duration of the call to Apple ends with its answer: a save that takes seconds (a locked database) is not
    /// counted in it. Found by a review: `siwa_apple_request_duration_seconds{endpoint="keys"}` showed the save.
    @Test func theKeysDurationLeavesOutTheSave() async throws {
        defer { server.stop() }
        let store = JWKSCacheStore(load: { nil }, save: { _ in try? await Task.sleep(for: .seconds(3)) })
        let cache = JWKSCache<String>(url: server.url, client: HTTPClient(), parse: JWKSCacheTests.parse,
                                      clock: { [clock] in clock.now }, store: store, logger: log.logger())
        await cache.refresh()
        let (buckets, sum) = cache.fetches.durations.snapshot
        #expect(buckets.reduce(0, +) >= 1)
        // A loaded parallel run once took 0.75 s for the loopback answer alone.
        #expect(Double(sum) / 1e9 < 2, "\(Double(sum) / 1e9) s for a loopback answer")
    }

    /// A store that does not answer (a frozen database) holds a lookup for at most `seedWait` before Apple is asked,
    /// and a save never holds it. Found by a black-box review: a sign-in waited 10 s for the load and 10 s for the
    /// save, each a statement timeout.
    @Test func aStoreThatDoesNotAnswerHoldsNoLookupLong() async throws {
        defer { server.stop() }
        let store = JWKSCacheStore(load: { try? await Task.sleep(for: .seconds(30)); return nil },
                                   save: { _ in try? await Task.sleep(for: .seconds(30)) })
        let cache = JWKSCache<String>(url: server.url, client: HTTPClient(), parse: JWKSCacheTests.parse,
                                      clock: { [clock] in clock.now }, store: store, logger: log.logger())
        server.set { $0.body = JWKSTestServer.jwks(["a": "fetched-a"]) }
        let started = ContinuousClock.now
        #expect(try await cache.key(for: "a") == "fetched-a")
        // The old code waited out the load's 30 s (and the save's after it); a loaded parallel run took 10 s here.
        #expect(ContinuousClock.now - started < .seconds(25), "\(ContinuousClock.now - started)")
    }
}
