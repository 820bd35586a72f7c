import TestSupport
import Testing
@testable import HTTPCore

/// `HTTPLimits.bodyTimeout` (`BODY_TIMEOUT`): a body must arrive whole within it after its head, whatever its rate;
/// the credit `minimumBodyRate` gives each byte never reaches past it. And what bodies in flight hold is counted,
/// bounded by `maxBodySize` each, and given back when they are cut.
@Suite(.timeLimit(.minutes(1)))
struct BodyTimeoutTests {
    static let scale = Sanitizer.timeScale

    /// With the defaults (20 s grace, 500 B/s, 60 s), 1 MiB of body would earn 2,117 s; the deadline stays at 60 s:
    /// in time 1 ns before (N), cut at 60 s (N + 1 ns). A slow body keeps the earlier rate deadline.
    @Test func theRateCreditNeverReachesPastTheBodyTimeout() {
        let limits = HTTPLimits()
        #expect(limits.bodyTimeout == .seconds(60) && HTTPLimits.defaultBodyTimeout == .seconds(60))
        let second = SlowBodyTests.second, start = 5 * second
        let timeout = start + 60 * second, grace = start + 20 * second
        let deadline = limits.bodyDeadline(start: start, received: 1_048_576)
        #expect(deadline == timeout)
        #expect(timeout - 1 < deadline)
        #expect(!(timeout < deadline))
        #expect(limits.bodyDeadline(start: start, received: 0) == grace)
        #expect(limits.bodyDeadline(start: start, received: .max) == timeout)
        #expect(HTTPLimits(minimumBodyRate: 0).bodyDeadline(start: start, received: 1) == timeout)
        #expect(HTTPLimits(bodyTimeout: .seconds(3_600)).bodyDeadline(start: start, received: 0) == grace)
    }

    /// 90 KB at once (180 s of credit at 500 B/s), then a byte every 100 ms: the rate alone would let it run for
    /// minutes; the 1 s body timeout cuts it with 408.
    @Test func aFastThenSlowBodyGets408AtTheBodyTimeout() async throws {
        let limits = HTTPLimits(bodyReadTimeout: .seconds(30 * Self.scale), bodyTimeout: .seconds(Self.scale))
        try await withServer(limits: limits) { _, port in
            let client = try RawClient(port: port)
            try client.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 100000\r\n\r\n"
                            + String(repeating: "f", count: 90_000))
            let cutAfter = await client.trickle("s", every: .milliseconds(100), atMost: 50 * Self.scale) { _ in "s" }
            let elapsed = try #require(cutAfter, "the body was not cut within 5 s")
            #expect(elapsed < .seconds(4 * Self.scale))
            #expect(try await client.readResponse().status == 408)
            #expect(await client.isClosedByPeer())
        }
    }

    /// Four fixed-length bodies reserve their `Content-Length` each and a chunked one holds what it has received:
    /// the gauge shows exactly that, never more than `maxBodySize` a connection. One that completes gives its bytes
    /// back at once; the rest give theirs back when they are cut (here by their clients leaving; the cut at the body
    /// timeout is `aFastThenSlowBodyGets408AtTheBodyTimeout`).
    @Test func bodiesInFlightAreBoundedAndGivenBackWhenCut() async throws {
        let maxBody = 64 * 1024
        let limits = HTTPLimits(maxBodySize: maxBody, bodyReadTimeout: .seconds(30 * Self.scale),
                                bodyTimeout: .seconds(30 * Self.scale))
        try await withServer(limits: limits) { server, port in
            #expect(server.bufferedBodyBytes == 0)
            var fixed = try (0..<4).map { _ in try RawClient(port: port, timeoutMilliseconds: 15_000 * Self.scale) }
            for client in fixed {
                try client.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: \(maxBody)\r\n\r\n"
                                + String(repeating: "b", count: maxBody - 1))
            }
            var chunked: RawClient? = try RawClient(port: port, timeoutMilliseconds: 15_000 * Self.scale)
            try chunked?.send(ChunkExtensionTests.head + "3e8\r\n" + String(repeating: "c", count: 1000))
            let tooLarge = try RawClient(port: port)
            try tooLarge.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: \(maxBody + 1)\r\n\r\n")
            #expect(try await tooLarge.readResponse().status == 413)
            let held = 4 * maxBody + 1000
            #expect(await Self.gauge(of: server, reaches: held))
            #expect(server.bufferedBodyBytes <= 5 * maxBody)

            try fixed[0].send("b")
            #expect(try await fixed[0].readResponse().status == 200)
            #expect(await Self.gauge(of: server, reaches: held - maxBody))

            fixed = []
            chunked = nil
            #expect(await Self.gauge(of: server, reaches: 0))
        }
    }

    /// Whether the server's gauge shows `bytes` within 15 s (the suite runs in parallel on two cores).
    static func gauge(of server: HTTPServer, reaches bytes: Int) async -> Bool {
        for _ in 0..<(300 * scale) {
            if server.bufferedBodyBytes == bytes { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return server.bufferedBodyBytes == bytes
    }
}
