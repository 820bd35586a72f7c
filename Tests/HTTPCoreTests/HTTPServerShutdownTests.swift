import Glibc
import Testing
import TestSupport
@testable import HTTPCore

/// Graceful shutdown as a rolling restart needs it: the listener closes at once, requests in flight and requests
/// already on their way are answered with `Connection: close`, and `HTTPServerConfiguration.shutdownGracePeriod` bounds it all.
@Suite struct HTTPServerShutdownTests {
    @Test func requestInFlightIsAnsweredWhileNewConnectionsAreRefused() async throws {
        let (entered, release) = (Arrival(), Arrival())
        try await withServer(responder: SlowResponder(arrival: entered, release: release)) { server, port in
            let held = try RawClient(port: port)
            try held.send("GET /slow HTTP/1.1\r\nHost: a\r\n\r\n")
            await entered.wait()
            let stopping = Task { await server.shutdown() }
            try await LoopbackPort.waitUntilRefused(port)
            release.signal()
            let response = try await held.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "slow done")
            #expect(response.headers["connection"] == "close")
            #expect(await held.isClosedByPeer())
            await stopping.value
            #expect(server.openConnections == 0)
        }
    }

    @Test func requestOnAnIdleKeepAliveConnectionIsAnsweredDuringTheDrain() async throws {
        try await withServer(drainIdleTimeout: .seconds(30)) { server, port in
            let client = try RawClient(port: port)
            try client.send("GET /plaintext HTTP/1.1\r\nHost: a\r\n\r\n")
            #expect(try await client.readResponse().headers["connection"] == nil)
            let stopping = Task { await server.shutdown() }
            try await LoopbackPort.waitUntilRefused(port)
            try client.send("GET /plaintext HTTP/1.1\r\nHost: a\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.headers["connection"] == "close")
            #expect(await client.isClosedByPeer())
            await stopping.value
        }
    }

    /// The idle timeout and the grace period are far beyond the client's wait, so only the drain deadline closes the
    /// connection within it; the wait itself is long, for a machine busy with the rest of the suite.
    @Test func idleConnectionClosesAfterTheDrainIdleTimeoutNotTheGracePeriod() async throws {
        try await withServer(limits: HTTPLimits(idleTimeout: .seconds(600)), shutdownGracePeriod: .seconds(120),
                             drainIdleTimeout: .milliseconds(100)) { server, port in
            let client = try RawClient(port: port, timeoutMilliseconds: 30_000)
            try client.send("GET /plaintext HTTP/1.1\r\nHost: a\r\n\r\n")
            _ = try await client.readResponse()
            let stopping = Task { await server.shutdown() }
            #expect(await client.isClosedByPeer())
            await stopping.value
            #expect(server.openConnections == 0)
        }
    }

    @Test func connectionsWaitingInTheBacklogAreServedNotReset() async throws {
        let (entered, release) = (Arrival(), Arrival())
        try await withServer(limits: HTTPLimits(maxConnections: 1),
                             responder: SlowResponder(arrival: entered, release: release)) { server, port in
            let held = try RawClient(port: port)
            try held.send("GET /slow HTTP/1.1\r\nHost: a\r\n\r\n")
            await entered.wait()
            let queued = try RawClient(port: port)
            try queued.send("GET /plaintext HTTP/1.1\r\nHost: a\r\n\r\n")
            #expect(server.acceptedConnections == 1)
            let stopping = Task { await server.shutdown() }
            try await LoopbackPort.waitUntilRefused(port)
            release.signal()
            let answer = try await queued.readResponse()
            #expect(answer.status == 200)
            #expect(answer.headers["connection"] == "close")
            #expect(try await held.readResponse().status == 200)
            await stopping.value
            #expect(server.acceptedConnections == 0)
        }
    }

    @Test func gracePeriodBoundsARequestThatDoesNotFinish() async throws {
        let (entered, release) = (Arrival(), Arrival())
        try await withServer(shutdownGracePeriod: .milliseconds(300),
                             responder: SlowResponder(arrival: entered, release: release)) { server, port in
            let held = try RawClient(port: port)
            try held.send("GET /slow HTTP/1.1\r\nHost: a\r\n\r\n")
            await entered.wait()
            await server.shutdown()
            #expect(await held.isClosedByPeer())
            release.signal()
        }
    }

    /// A pipelined request's answer is not held behind the next request's handler: it is on the wire while that
    /// handler waits, and so survives a grace period that ends first. Found by a review: the answer (its write, in
    /// the app, committed) waited for the next handler and was lost at the grace period's end.
    @Test(arguments: [false, true])
    func aPipelinedAnswerIsSentWhileTheNextHandlerWaits(shutdownFirst: Bool) async throws {
        let (entered, release) = (Arrival(), Arrival())
        try await withServer(shutdownGracePeriod: .milliseconds(300),
                             responder: SlowResponder(arrival: entered, release: release)) { server, port in
            let client = try RawClient(port: port)
            try client.send("POST /first HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nok"
                            + "GET /slow HTTP/1.1\r\nHost: a\r\n\r\n")
            await entered.wait()
            if shutdownFirst {
                // The grace period ends while the second handler still waits.
                await server.shutdown()
                release.signal()
            }
            let first = try? await client.readResponse()
            #expect(first?.status == 200)
            #expect(first?.text == "POST /first 2\nok")
            await server.shutdown()
            release.signal()
        }
    }

    @Test func defaultsAreNamed() {
        let configuration = HTTPServerConfiguration()
        #expect(configuration.shutdownGracePeriod == HTTPServerConfiguration.defaultShutdownGracePeriod)
        #expect(configuration.drainIdleTimeout == HTTPServerConfiguration.defaultDrainIdleTimeout)
        #expect(HTTPServerConfiguration.defaultDrainIdleTimeout < HTTPServerConfiguration.defaultShutdownGracePeriod)
    }
}
