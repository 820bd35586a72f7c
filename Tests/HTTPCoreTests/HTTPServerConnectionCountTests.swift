import Testing
@testable import HTTPCore

/// `HTTPServer.openConnections` and `acceptedConnections`, what the app's metrics page reads.
struct HTTPServerConnectionCountTests {
    /// Polls `condition` for up to 30 s (closing is asynchronous; the machine may be loaded). The clients wait up
    /// to 60 s for an answer: under a full parallel test run a 5 s receive timeout was seen to expire.
    func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<3000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test func countsOpenAndAcceptedConnections() async throws {
        try await withServer { server, port in
            #expect(server.openConnections == 0)
            #expect(server.acceptedConnections == 0)
            var first: RawClient? = try RawClient(port: port, timeoutMilliseconds: 60_000)
            let second = try RawClient(port: port, timeoutMilliseconds: 60_000)
            try first?.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n")
            try second.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try await first?.readResponse()
            _ = try await second.readResponse()
            #expect(server.openConnections == 2)
            #expect(server.acceptedConnections == 2)
            first = nil
            #expect(await eventually { server.openConnections == 1 })
            #expect(server.acceptedConnections == 2)
            withExtendedLifetime(second) {}
        }
    }

    @Test func countsAreZeroBeforeStart() {
        let server = HTTPServer(configuration: .init(port: 0), responder: EchoResponder(), logger: .init(label: "test"))
        #expect(server.openConnections == 0)
        #expect(server.acceptedConnections == 0)
    }
}
