import Glibc
import Logging
import Synchronization
import Testing
@testable import HTTPCore

@Suite(.timeLimit(.minutes(1)))
struct HTTPServerLoggingTests {
    @Test func accessLogHasMethodPathStatusAndNoSecrets() async throws {
        let handler = CapturingLogHandler()
        let logger = Logger(label: "access") { _ in handler }
        let server = HTTPServer(configuration: .init(port: 0, loopCount: 1), responder: EchoResponder(), logger: logger)
        try server.start()
        let client = try RawClient(port: server.localPort)
        try client.send("GET /login?token=secret HTTP/1.1\r\nHost: a\r\nCookie: session=hidden\r\n"
                        + "Authorization: Bearer abc\r\n\r\n")
        #expect(try await client.readResponse().status == 200)
        let bad = try RawClient(port: server.localPort)
        try bad.send("GET /x?token=secret HTTP/1.1\r\n\r\n")
        #expect(try await bad.readResponse().status == 400)
        await server.shutdown()
        let lines = handler.lines.withLock { $0 }
        let access = lines.filter { $0.hasPrefix("info GET /login ") }
        #expect(access.count == 1)
        #expect(access.first?.contains(" 200 ") == true)
        #expect(access.first?.hasSuffix("ms") == true)
        #expect(lines.contains { $0.hasPrefix("info refused 400 from 127.0.0.1:") && $0.hasSuffix(": Missing Host header") }, "\(lines)")
        #expect(!lines.joined().contains("secret"))
        #expect(!lines.joined().contains("hidden"))
        #expect(!lines.joined().contains("abc"))
    }

    @Test func accessLogOffLeavesOnlyRefusals() async throws {
        let handler = CapturingLogHandler()
        let logger = Logger(label: "access") { _ in handler }
        let server = HTTPServer(configuration: .init(port: 0, loopCount: 1, accessLog: false), responder: EchoResponder(),
                                logger: logger)
        try server.start()
        let client = try RawClient(port: server.localPort)
        try client.send("GET /quiet HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(try await client.readResponse().status == 200)
        let bad = try RawClient(port: server.localPort)
        try bad.send("GET /x HTTP/1.1\r\n\r\n")
        #expect(try await bad.readResponse().status == 400)
        let connect = try RawClient(port: server.localPort)
        try connect.send("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
        #expect(try await connect.readResponse().status == 501)
        await server.shutdown()
        let lines = handler.lines.withLock { $0 }
        #expect(!lines.contains { $0.contains("/quiet") })
        #expect(lines.contains { $0.hasPrefix("info refused 501 from 127.0.0.1:") && $0.hasSuffix(": CONNECT is not supported") },
                "\(lines)")
        #expect(lines.contains { $0.hasPrefix("info refused 400 from 127.0.0.1:") && $0.hasSuffix(": Missing Host header") }, "\(lines)")
    }

    @Test func dateIsIMFFixdate() {
        #expect(DateCache.format(784_111_777) == Array("Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n".utf8))
    }

    @Test func severalLoopsServeConcurrentClients() async throws {
        try await withServer(loops: 2) { _, port in
            let clients = try (0..<8).map { _ in try RawClient(port: port) }
            for (index, client) in clients.enumerated() { try client.send("GET /c\(index) HTTP/1.1\r\nHost: a\r\n\r\n") }
            for (index, client) in clients.enumerated() {
                #expect(try await client.readResponse().text == "GET /c\(index) 0\n")
            }
        }
    }

    @Test func sigtermShutsDownGracefully() async throws {
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let arrival = Arrival()
        let server = HTTPServer(configuration: .init(port: 0, loopCount: 1), responder: SlowResponder(arrival: arrival),
                                logger: logger)
        try server.start()
        let sources = server.installSignalHandlers([SIGUSR2])
        let client = try RawClient(port: server.localPort)
        try client.send("GET /slow HTTP/1.1\r\nHost: a\r\n\r\n")
        await arrival.wait()
        kill(getpid(), SIGUSR2)
        #expect(try await client.readResponse().text == "slow done")
        try await server.run()
        for source in sources { source.cancel() }
    }
}

struct DescriptorLimitTests {
    @Test func connectionsLeaveADescriptorReserve() {
        #expect(DescriptorLimit.connectionCap(configured: 10_000, softLimit: 1024) == 1024 - 64 - 128)
        #expect(DescriptorLimit.connectionCap(configured: 100, softLimit: 1_048_576) == 100)
        #expect(DescriptorLimit.connectionCap(configured: 100, softLimit: 40) == 1)
        #expect(DescriptorLimit.raiseSoftLimit() >= 64)
    }
}
