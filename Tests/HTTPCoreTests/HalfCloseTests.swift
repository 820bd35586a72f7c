import Testing
@testable import HTTPCore

/// A client that sends its last request and its FIN together is answered and then closed at once, not held until
/// a timeout: with edge-triggered epoll the data and the hang-up can arrive as one edge, consumed before the read.
@Suite(.timeLimit(.minutes(1)))
struct HalfCloseTests {
    static let limits = HTTPLimits(headerTimeout: .seconds(30), idleTimeout: .seconds(30))

    @Test func lastRequestWithFINIsAnsweredAndTheConnectionClosed() async throws {
        try await withServer(limits: Self.limits) { _, port in
            for round in 0..<20 {
                let client = try RawClient(port: port)
                try client.send("GET /first HTTP/1.1\r\nHost: a\r\n\r\n")
                #expect(try await client.readResponse().text == "GET /first 0\n")
                try client.send("GET /last HTTP/1.1\r\nHost: a\r\n\r\n")
                client.shutdownWrite()
                #expect(try await client.readResponse().text == "GET /last 0\n")
                #expect(await client.isClosedByPeer(), "round \(round): not closed after the FIN")
            }
        }
    }

    @Test func partialHeadThenFINIsClosedAtOnce() async throws {
        try await withServer(limits: Self.limits) { _, port in
            for _ in 0..<20 {
                let client = try RawClient(port: port)
                try client.send("GET /first HTTP/1.1\r\nHost: a\r\n\r\n")
                #expect(try await client.readResponse().status == 200)
                try client.send("GET /held HTTP/1.1\r\nHost:")
                client.shutdownWrite()
                #expect(await client.readToEnd().isEmpty)
            }
        }
    }

    /// A client that half-closes but does not read: the half-close does not end the server's wait to write (the
    /// client may still read); `writeTimeout` cuts it off and its place is given back.
    @Test func halfClosedClientThatDoesNotReadIsCutOffByTheWriteTimeout() async throws {
        var limits = Self.limits
        limits.writeTimeout = .milliseconds(500)
        limits.exemptLoopback = false
        try await withServer(limits: limits) { server, port in
            let client = try RawClient(port: port)
            try client.send("GET /big HTTP/1.1\r\nHost: a\r\n\r\n")
            client.shutdownWrite()
            let acceptor = try #require(server.acceptor)
            let deadline = ContinuousClock.now + .seconds(20)
            // First the accept, which may come after the client's connect returns: until then no connection is
            // active or counted, and the wait below would end before it began.
            while acceptor.acceptedConnections == 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(acceptor.acceptedConnections == 1)
            while acceptor.activeConnections > 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(acceptor.activeConnections == 0)
            #expect(acceptor.perAddress.trackedAddresses == 0)
        }
    }
}
