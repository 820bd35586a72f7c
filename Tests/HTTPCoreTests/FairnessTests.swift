import Glibc
import TestSupport
import Testing
@testable import HTTPCore

/// One connection that always has more to read does not hold its event loop: past `ReadBudget.bytesPerTurn` in
/// an iteration it yields, and the loop serves its other connections.
@Suite(.timeLimit(.minutes(1)))
struct FairnessTests {
    static let scale = Sanitizer.timeScale
    static let mebibyte = 1_048_576
    static let request = "GET /plaintext HTTP/1.1\r\nHost: a\r\n\r\n"

    /// Empty lines, which a server ignores before a request (RFC 9112 §2.2): a stream of them never completes a
    /// request and costs the server nothing to hold, so every read of it comes back full.
    static func emptyLines(_ bytes: Int) -> [UInt8] {
        Array(String(repeating: "\r\n", count: bytes / 2).utf8)
    }

    /// To the byte, over socketpairs: while the loop is held, one connection gets 1 MiB of empty lines and then
    /// another a request. Both are ready at the same `epoll_wait`; the flooded one reads exactly one budget and
    /// yields, and the request is answered with the rest of the flood still unread. Without the budget it would
    /// read the whole MiB first and the answer would say 0.
    @Test func aConnectionReadsOneBudgetPerTurnWhileAnotherWaits() async throws {
        let flooded = try SocketPair(), other = try SocketPair(), holder = try SocketPair()
        var size: Int32 = 4 * Int32(Self.mebibyte)
        setsockopt(flooded.client.fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        let responder = HoldingResponder(watching: flooded)
        try await withServer(loops: 1, responder: responder) { server, _ in
            for pair in [flooded, other, holder] { try pair.serve(on: server) }
            for pair in [flooded, other] {
                try pair.client.send(Self.request)
                #expect(try await pair.client.readResponse().status == 200)
            }
            try holder.client.send("GET /hold HTTP/1.1\r\nHost: a\r\n\r\n")
            await responder.holding.wait()
            let flood = Self.emptyLines(Self.mebibyte)
            let sent = flood.withUnsafeBytes {
                send(flooded.client.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
            }
            try #require(sent == flood.count)
            try other.client.send("GET /unread HTTP/1.1\r\nHost: a\r\n\r\n")
            responder.release()

            let answer = try await other.client.readResponse()
            #expect(answer.text == "\(flood.count - ReadBudget.bytesPerTurn)")
            #expect(try await holder.client.readResponse().text == "released")
        }
    }

    /// End to end on loopback TCP, with the server on one loop: a client floods empty lines from a fast socket
    /// (`Flood`), and a request on another keep-alive connection is answered within a few seconds, while the
    /// flood goes on and is still being read. Without the budget the answer waits for a read of the flood to come
    /// back short, which on a busy machine may take well under a second or more than the bound: the test above is
    /// the exact one.
    @Test func aKeepAliveRequestIsAnsweredWhileAnotherConnectionFloods() async throws {
        try await withServer(loops: 1) { _, port in
            let victim = try RawClient(port: port, timeoutMilliseconds: 3000 * Self.scale)
            try victim.send(Self.request)
            #expect(try await victim.readResponse().status == 200)

            // Longer than every wait below together, so the flood is stopped by the test, never by its clock: on a
            // loaded machine reaching 32 MiB alone may take most of 10 s.
            let flood = try Flood(port: port, pattern: Self.emptyLines(64 * 1024), for: .seconds(30 * Self.scale))
            // Past what the socket buffers hold, so the server is reading the flood.
            let flooding = await flood.waitUntilSent(32 * Self.mebibyte, within: .seconds(10 * Self.scale))

            try victim.send(Self.request)
            let answer = try? await victim.readResponse()
            let sentAtAnswer = flood.bytesSent
            let floodingAtAnswer = flood.isRunning
            let stillRead = await flood.waitUntilSent(sentAtAnswer + 4 * Self.mebibyte,
                                                      within: .seconds(10 * Self.scale))
            await flood.stop()

            #expect(flooding)
            #expect(answer?.status == 200)
            #expect(floodingAtAnswer)
            #expect(stillRead)
        }
    }
}
