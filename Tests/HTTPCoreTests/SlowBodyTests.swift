import TestSupport
import Testing
@testable import HTTPCore

/// The minimum body rate (`HTTPLimits.bodyGracePeriod`, `minimumBodyRate`): a body that keeps arriving, but
/// slower than the rate, is cut off with 408 however short the pauses between its bytes.
@Suite(.timeLimit(.minutes(1)))
struct SlowBodyTests {
    static let scale = Sanitizer.timeScale
    static let second: UInt64 = 1_000_000_000

    /// The deadline at the boundary, in bytes and in time: 1.5 s into a body with a 1 s grace at 100 B/s, 51
    /// bytes (N) are in time and 50 (N - 1) are cut; with 50 bytes the body is in time 1 ns before 1.5 s (N)
    /// and cut at 1.5 s (N + 1 ns).
    @Test func deadlineAtTheBoundary() {
        let limits = HTTPLimits(bodyGracePeriod: .seconds(1), minimumBodyRate: 100)
        let start: UInt64 = 7 * Self.second
        let instant = start + Self.second * 3 / 2
        #expect(instant < limits.bodyDeadline(start: start, received: 51))
        #expect(!(instant < limits.bodyDeadline(start: start, received: 50)))
        #expect(instant - 1 < limits.bodyDeadline(start: start, received: 50))
        #expect(limits.bodyDeadline(start: start, received: 0) == start + Self.second)
    }

    /// Without a minimum rate, and with a count too large to credit, the body timeout is the deadline.
    @Test func zeroRateTurnsTheMinimumOffAndHugeCountsDoNotOverflow() {
        #expect(HTTPLimits(minimumBodyRate: 0).bodyDeadline(start: 1, received: 10) == 1 + 60 * Self.second)
        #expect(HTTPLimits().bodyDeadline(start: 1, received: .max) == 1 + 60 * Self.second)
        #expect(HTTPLimits.defaultBodyGracePeriod == .seconds(20))
        #expect(HTTPLimits.defaultMinimumBodyRate == 500)
    }

    /// 1 byte every 100 ms (10 B/s) against 100 B/s after a 300 ms grace: each byte comes well inside the 5 s
    /// pause limit, so only the rate can cut it, long before its 100 bytes are in (10 s).
    @Test func aTricklingBodyGets408AndTheConnectionCloses() async throws {
        let limits = HTTPLimits(bodyReadTimeout: .seconds(5 * Self.scale),
                                bodyGracePeriod: .milliseconds(300 * Self.scale), minimumBodyRate: 100)
        try await withServer(limits: limits) { _, port in
            let client = try RawClient(port: port)
            try client.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\n")
            var cut = false
            for _ in 0..<100 {
                try? await Task.sleep(for: .milliseconds(100))
                if (try? client.send("x")) == nil { cut = true; break }
                if await client.hasInput(within: 0) { cut = true; break }
            }
            #expect(cut)
            #expect(try await client.readResponse().status == 408)
            #expect(await client.isClosedByPeer())
        }
    }

    /// 200 bytes with the head, then 200 more every 100 ms for 1 s, past the 300 ms grace, against 10 B/s: each
    /// chunk buys 20 s, so a loaded machine's late wake-ups (the test pool busy for seconds) do not matter.
    @Test func aBodyKeepingAboveTheRateIsAnswered() async throws {
        let limits = HTTPLimits(bodyReadTimeout: .seconds(30 * Self.scale),
                                bodyGracePeriod: .milliseconds(300 * Self.scale), minimumBodyRate: 10)
        let chunk = String(repeating: "y", count: 200)
        try await withServer(limits: limits) { _, port in
            let client = try RawClient(port: port)
            try client.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2200\r\n\r\n" + chunk)
            for _ in 0..<10 {
                try await Task.sleep(for: .milliseconds(100))
                try client.send(chunk)
            }
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.text.hasPrefix("POST / 2200\n"))
        }
    }
}
