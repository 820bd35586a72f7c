import Glibc
import IOCore
import Testing
@testable import HTTPCore

/// Opening a connection to one of several addresses (`HTTPClientConnection.connect`).
struct HTTPClientConnectTests {
    /// An address that never answers (a full accept queue: SYN_SENT for ever) takes its share of the connect time,
    /// and the next one is tried. Found by a review: the first address took all of it. The time is long enough (10 s
    /// each) for a test process starved at the suite's start.
    @Test func aSilentFirstAddressLeavesTimeForTheNext() async throws {
        let silent = try FullBacklogListener()
        let server = try ScriptedServer { _ in .reply(Array("HTTP/1.1 204 No Content\r\n\r\n".utf8)) }
        defer { server.stop() }
        let addresses = try HTTPClientAddress.resolve(host: "127.0.0.1", port: Int(silent.port))
            + HTTPClientAddress.resolve(host: "127.0.0.1", port: Int(server.port))
        let loop = EventLoopGroup.shared.next()
        let connection = try await withTaskExecutorPreference(loop) {
            try await HTTPClientConnection.connect(to: addresses, host: "127.0.0.1", port: Int(server.port), loop: loop,
                                                   tls: nil, deadline: MonotonicClock.deadline(after: .seconds(20)))
        }
        try await connection.write(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8), until: MonotonicClock.deadline(after: .seconds(5)))
        var answer: [UInt8] = []
        _ = try await connection.read(appendingTo: &answer, maxCount: 1024, until: MonotonicClock.deadline(after: .seconds(5)))
        #expect(String(decoding: answer, as: UTF8.self).hasPrefix("HTTP/1.1 204"), "connected to the second address")
    }

    /// Each address's share: even among it and those after it; the last one gets all that is left.
    @Test func theSharesOfTheTimeLeft() {
        let deadline = MonotonicClock.now() + 3_000_000_000
        let first = MonotonicClock.share(of: deadline, among: 3)
        #expect(first < deadline && first > deadline - 2_100_000_000)
        #expect(MonotonicClock.share(of: deadline, among: 1) == deadline)
        #expect(MonotonicClock.share(of: 5, among: 3) == 5, "past: the deadline itself")
    }

    /// A socket whose connection is still being made is never returned as connected, whichever thread asks.
    /// Found by a review: registered with epoll before connect(2), an unconnected socket's hang-up edge could be
    /// taken for writability when the caller was not on the loop's thread.
    @Test(arguments: [false, true])
    func aConnectionStillBeingMadeIsNeverReturned(onLoop: Bool) async throws {
        let silent = try FullBacklogListener()
        let addresses = try HTTPClientAddress.resolve(host: "127.0.0.1", port: Int(silent.port))
        for _ in 0..<20 {
            let loop = EventLoopGroup.shared.next()
            let attempt = {
                try await HTTPClientConnection.connect(to: addresses, host: "127.0.0.1", port: Int(silent.port), loop: loop,
                                                       tls: nil, deadline: MonotonicClock.deadline(after: .milliseconds(100)))
            }
            await #expect(throws: HTTPClientError.self) {
                _ = onLoop ? try await withTaskExecutorPreference(loop) { try await attempt() } : try await attempt()
            }
        }
    }
}
