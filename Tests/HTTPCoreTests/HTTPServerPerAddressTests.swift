import Glibc
import Logging
import Testing
@testable import HTTPCore

/// `HTTPLimits.maxConnectionsPerAddress` on 127.0.0.1 (loopback exemption off): N connections are served,
/// N + 1 is closed unread, and every way a connection ends gives its place back exactly once.
@Suite(.timeLimit(.minutes(1)))
struct HTTPServerPerAddressTests {
    static let cap = 3
    /// Timeouts far beyond any test, so only the ending under test closes connections, however loaded the machine.
    static let limits = HTTPLimits(headerTimeout: .seconds(30), idleTimeout: .seconds(30),
                                   maxConnectionsPerAddress: cap, exemptLoopback: false)
    static let short = Duration.milliseconds(500)
    static let localhost = AddressPrefix.ipv4(0x7F00_0001)
    /// Longest wait for the server to notice closes; never reached when things work.
    static let patience = ContinuousClock.Duration.seconds(10)

    /// Connects and gets one answer; nil when the server closed the connection without answering (over the cap).
    /// With `hold`, a second request follows in the same write and stops mid-head, so the connection is never idle.
    static func servedClient(port: Int, hold: Bool = false) async throws -> RawClient? {
        let client = try RawClient(port: port)
        let request = "GET / HTTP/1.1\r\nHost: a\r\n\r\n" + (hold ? "GET /held HTTP/1.1\r\n" : "")
        guard (try? client.send(request)) != nil else { return nil }
        guard let response = try? await client.readResponse() else { return nil }
        #expect(response.status == 200)
        return client
    }

    /// `count` served connections, retrying refused ones while the server still counts closing ones.
    static func fill(_ count: Int, port: Int, hold: Bool = false) async throws -> [RawClient] {
        let deadline = ContinuousClock.now + patience
        var clients: [RawClient] = []
        while clients.count < count {
            if let client = try await servedClient(port: port, hold: hold) {
                clients.append(client)
            } else {
                try #require(ContinuousClock.now < deadline, "only \(clients.count) of \(count) connections served")
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        return clients
    }

    /// Over the cap: the connection is closed before anything is read or written.
    static func expectRefused(port: Int) async throws {
        let client = try RawClient(port: port)
        _ = try? client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(await client.readToEnd().isEmpty)
    }

    /// Waits until the server counts exactly `count` open connections from 127.0.0.1.
    static func waitUntilCounted(_ count: Int, by acceptor: ConnectionAcceptor) async throws {
        let deadline = ContinuousClock.now + patience
        while acceptor.perAddress.openConnections(from: localhost) != count {
            try #require(ContinuousClock.now < deadline,
                         "counted \(acceptor.perAddress.openConnections(from: localhost)), expected \(count)")
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    @Test func capAllowsNAndClosesNPlusOneUnread() async throws {
        try await withServer(limits: Self.limits, loops: 2) { server, port in
            let clients = try await Self.fill(Self.cap, port: port)
            let refusedBefore = server.refusedConnections
            try await Self.expectRefused(port: port)
            let acceptor = try #require(server.acceptor)
            #expect(acceptor.perAddress.openConnections(from: Self.localhost) == Self.cap)
            #expect(server.refusedConnections == refusedBefore + 1)
            for client in clients {
                try client.send("GET /again HTTP/1.1\r\nHost: a\r\n\r\n")
                #expect(try await client.readResponse().text == "GET /again 0\n")
            }
        }
    }

    @Test func loopbackIsExemptByDefault() async throws {
        var limits = Self.limits
        limits.exemptLoopback = true
        try await withServer(limits: limits) { server, port in
            let clients = try await Self.fill(Self.cap * 4, port: port)
            #expect(clients.count == Self.cap * 4)
            #expect(server.acceptor?.perAddress.trackedAddresses == 0)
        }
    }

    @Test func zeroTurnsTheCapOff() async throws {
        var limits = Self.limits
        limits.maxConnectionsPerAddress = 0
        try await withServer(limits: limits) { (server, port) async throws -> Void in
            let clients = try await Self.fill(Self.cap * 4, port: port)
            #expect(clients.count == Self.cap * 4)
            #expect(server.acceptor?.perAddress.trackedAddresses == 0)
        }
    }

    enum Ending: String, CaseIterable, Sendable {
        case peerCloses, idleTimeout, headerTimeout, badRequest, connectionClose
    }

    /// Two rounds of: `cap` connections end this way, then `cap` new ones are served and one more is refused.
    @Test(arguments: Ending.allCases)
    func everyEndingGivesThePlaceBack(_ ending: Ending) async throws {
        var limits = Self.limits
        if ending == .idleTimeout { limits.idleTimeout = Self.short }
        if ending == .headerTimeout { limits.headerTimeout = Self.short }
        try await withServer(limits: limits, loops: 2) { server, port in
            let acceptor = try #require(server.acceptor)
            for _ in 0..<2 {
                let clients = try await Self.fill(Self.cap, port: port)
                for client in clients {
                    switch ending {
                    case .peerCloses: client.shutdownWrite()
                    case .idleTimeout: break
                    case .headerTimeout: try client.send("GET / HTTP/1.1\r\n")
                    case .badRequest: try client.send("GET / HTTP/1.1\r\nHost a\r\n\r\n")
                    case .connectionClose: try client.send("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
                    }
                }
                for client in clients { _ = await client.readToEnd() }
                try await Self.waitUntilCounted(0, by: acceptor)
                let next = try await Self.fill(Self.cap, port: port, hold: ending != .headerTimeout)
                try await Self.expectRefused(port: port)
                for client in next { client.shutdownWrite() }
                try await Self.waitUntilCounted(0, by: acceptor)
            }
            #expect(acceptor.activeConnections == 0)
        }
    }

    @Test func failedTLSHandshakesGiveThePlaceBack() async throws {
        let tls = try await TLSServerTests.makeCertificate()
        try await withServer(limits: Self.limits, loops: 2, tls: tls) { server, port in
            let acceptor = try #require(server.acceptor)
            for _ in 0..<2 {
                let failing = try (0..<Self.cap).map { _ in try RawClient(port: port) }
                for client in failing { try client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n") }
                for client in failing { _ = await client.readToEnd() }
                try await Self.waitUntilCounted(0, by: acceptor)
                let waiting = try (0..<Self.cap).map { _ in try RawClient(port: port) }
                try await Self.waitUntilCounted(Self.cap, by: acceptor)
                try await Self.expectRefused(port: port)
                #expect(acceptor.perAddress.openConnections(from: Self.localhost) == Self.cap)
                for client in waiting { client.shutdownWrite() }
                try await Self.waitUntilCounted(0, by: acceptor)
            }
        }
    }

    @Test func shutdownGivesEveryPlaceBack() async throws {
        let server = HTTPServer(configuration: .init(hostname: "127.0.0.1", port: 0, loopCount: 2, limits: Self.limits),
                                responder: EchoResponder(), logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        try server.start()
        let acceptor = try #require(server.acceptor)
        let clients = try await Self.fill(Self.cap, port: server.localPort)
        try await Self.expectRefused(port: server.localPort)
        await server.shutdown()
        #expect(acceptor.perAddress.trackedAddresses == 0)
        #expect(acceptor.activeConnections == 0)
        for client in clients { #expect(await client.isClosedByPeer()) }
    }
}
