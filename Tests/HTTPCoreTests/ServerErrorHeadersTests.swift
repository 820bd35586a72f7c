import Logging
import TestSupport
import Testing
@testable import HTTPCore

/// The answers the server writes itself, before any responder runs, carry `HTTPServerConfiguration.errorHeaders`
/// (the application's security headers), as the responder's answers do.
@Suite(.timeLimit(.minutes(1)))
struct ServerErrorHeadersTests {
    static let headers: HTTPHeaders = [
        "X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY",
        "Content-Security-Policy": "frame-ancestors 'none'", "Referrer-Policy": "strict-origin-when-cross-origin",
    ]

    static func withServer(_ body: (Int) async throws -> Void) async throws {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let limits = HTTPLimits(maxRequestLineLength: 64, maxHeaderSectionSize: 256, maxBodySize: 8,
                                bodyReadTimeout: .milliseconds(200 * Sanitizer.timeScale))
        let server = HTTPServer(configuration: .init(port: 0, loopCount: 1, limits: limits, errorHeaders: headers),
                                responder: EchoResponder(), logger: logger)
        try server.start()
        do {
            try await body(server.localPort)
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    @Test(arguments: [
        ("GET / HTTP/1.1\r\nHost: a b\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 9\r\n\r\n", 413),
        ("GET /" + String(repeating: "a", count: 80) + " HTTP/1.1\r\nHost: a\r\n\r\n", 414),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "b", count: 300) + "\r\n\r\n", 431),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
        ("CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n", 501),
        ("GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nab", 408),
    ])
    func everyRefusalCarriesTheHeaders(_ request: String, _ status: Int) async throws {
        try await Self.withServer { port in
            let client = try RawClient(port: port)
            try client.send(request)
            let response = try await client.readResponse()
            #expect(response.status == status)
            for (name, value) in Self.headers { #expect(response.headers[name] == value, "\(name)") }
            #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        }
    }

    @Test func answersFromTheResponderAreLeftAsTheyAre() async throws {
        try await Self.withServer { port in
            let client = try RawClient(port: port)
            try client.send("GET /plaintext HTTP/1.1\r\nHost: a\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.headers["X-Frame-Options"] == nil)
        }
    }
}
