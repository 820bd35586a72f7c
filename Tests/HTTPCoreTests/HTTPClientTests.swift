import Foundation
import Glibc
import TestSupport
import Testing
@testable import HTTPCore

/// The client against real loopback sockets served by `ScriptedServer`.
struct HTTPClientTests {
    func serve(_ response: String) throws -> ScriptedServer {
        try ScriptedServer { _ in .reply(Array(response.utf8)) }
    }

    func kind(of body: () async throws -> Void) async -> HTTPClientError.Kind? {
        await HTTPClientError.kind(of: body)
    }

    @Test func contentLengthResponseAndRequestHead() async throws {
        let server = try serve("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Test: yes\r\n\r\nhello")
        defer { server.stop() }
        let request = HTTPClientRequest(method: .POST, url: "http://127.0.0.1:\(server.port)/auth/token?a=1",
                                        headers: ["Content-Type": "application/x-www-form-urlencoded",
                                                  "Connection": "keep-alive"],
                                        body: Array("a=b".utf8))
        let response = try await HTTPClient().send(request)
        #expect(response.status == .ok)
        #expect(response.headers["x-test"] == "yes")
        #expect(response.body == Array("hello".utf8))
        let received = try #require(server.requests.first)
        let lines = received.head.split(separator: "\r\n").map(String.init)
        #expect(lines.first == "POST /auth/token?a=1 HTTP/1.1")
        #expect(lines.contains("Host: 127.0.0.1:\(server.port)"))
        #expect(lines.contains("Content-Length: 3"))
        #expect(!lines.contains { $0.lowercased().hasPrefix("connection:") })
        #expect(!lines.contains("Connection: keep-alive"))
        #expect(lines.contains("User-Agent: siwa-server"))
        #expect(lines.contains("Content-Type: application/x-www-form-urlencoded"))
        #expect(received.body == Array("a=b".utf8))
    }

    @Test func headOwnsHostAndFramingAndKeepsAGivenUserAgent() throws {
        let url = try HTTPClientURL(parsing: "https://[2001:db8::1]/auth/revoke")
        let request = HTTPClientRequest(method: .POST, url: "unused", headers: [
            "HOST": "evil.example", "transfer-encoding": "chunked", "Content-length": "99", "user-agent": "app/1",
            "Accept": "application/json",
        ])
        let head = String(decoding: try HTTPClient.serializeHead(request, url: url, userAgent: "siwa-server"),
                          as: UTF8.self)
        #expect(head == "POST /auth/revoke HTTP/1.1\r\nHost: [2001:db8::1]\r\nuser-agent: app/1\r\n"
            + "Accept: application/json\r\nContent-Length: 0\r\n\r\n")
        let delete = HTTPClientRequest(method: .DELETE, url: "unused")
        let deleteHead = String(decoding: try HTTPClient.serializeHead(delete, url: url, userAgent: "ua"),
                                as: UTF8.self)
        #expect(deleteHead == "DELETE /auth/revoke HTTP/1.1\r\nHost: [2001:db8::1]\r\nUser-Agent: ua\r\n\r\n")
    }

    @Test func getSendsNoContentLength() async throws {
        let server = try serve("HTTP/1.1 204 No Content\r\n\r\n")
        defer { server.stop() }
        let response = try await HTTPClient().send(HTTPClientRequest(url: "http://localhost:\(server.port)"))
        #expect(response.status == .noContent)
        let head = try #require(server.requests.first).head
        #expect(head.hasPrefix("GET / HTTP/1.1\r\n"))
        #expect(!head.lowercased().contains("content-length"))
        #expect(head.contains("Host: localhost:\(server.port)"))
    }

    @Test func chunkedResponse() async throws {
        let server = try serve("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "4\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\nX-Trailer: t\r\n\r\n")
        defer { server.stop() }
        let response = try await HTTPClient().send(HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/"))
        #expect(response.body == Array("{\"a\":1}".utf8))
        #expect(response.trailers["x-trailer"] == "t")
    }

    @Test func readToCloseResponse() async throws {
        let body = String(repeating: "0123456789", count: 10_000)
        let server = try serve("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + body)
        defer { server.stop() }
        let response = try await HTTPClient().send(HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/"))
        #expect(response.body.count == body.utf8.count)
        #expect(response.body == Array(body.utf8))
    }

    @Test func redirectIsReturnedAsIs() async throws {
        let server = try serve("HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:1/elsewhere\r\nContent-Length: 0\r\n\r\n")
        defer { server.stop() }
        let response = try await HTTPClient().send(HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/"))
        #expect(response.status == .found)
        #expect(response.headers["Location"] == "http://127.0.0.1:1/elsewhere")
        #expect(server.requests.count == 1)
    }

    @Test func oversizeResponseRefusedAtBoundary() async throws {
        let server = try ScriptedServer { request in
            let size = request.head.hasPrefix("GET /big") ? 1001 : 1000
            return .reply(Array("HTTP/1.1 200 OK\r\n\r\n".utf8) + [UInt8](repeating: 65, count: size))
        }
        defer { server.stop() }
        let client = HTTPClient(configuration: .init(maxResponseSize: 1000))
        let fits = try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/fits"))
        #expect(fits.body.count == 1000)
        #expect(await kind {
            _ = try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/big"))
        } == .responseTooLarge)
    }

    @Test func readTimeoutOnStallingServer() async throws {
        let server = try ScriptedServer { _ in .replyAndStall(Array("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhal".utf8)) }
        defer { server.stop() }
        let client = HTTPClient(configuration: .init(timeout: .seconds(1)))
        let started = ContinuousClock.now
        let failure = await kind {
            _ = try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/"))
        }
        // The call's one deadline: normally it passes while the answer stalls; on a machine so loaded that the
        // connect itself, or the wait for the pool to hand the connection over, outlasts it, it passes there (a CI
        // run beside two builds saw `.poolTimeout`).
        #expect([.readTimeout, .connectTimeout, .poolTimeout].contains(failure), "\(String(describing: failure))")
        // The server stalls for good: any bound shows the timeout fired. A wide one, since the whole suite runs in
        // parallel on two cores and this task may wait seconds for a thread.
        #expect(ContinuousClock.now - started < .seconds(30 * Sanitizer.timeScale))
    }

    @Test func connectionRefused() async throws {
        let refusing = try ScriptedServer.RefusingPort()
        let failure = await kind {
            _ = try await HTTPClient().send(HTTPClientRequest(url: "http://127.0.0.1:\(refusing.port)/"))
        }
        #expect(failure == .connectFailed, "\(String(describing: failure))")
        withExtendedLifetime(refusing) {}
    }

    @Test func connectTimeoutWhenBacklogIsFull() async throws {
        let listener = try FullBacklogListener()
        let client = HTTPClient(configuration: .init(connectTimeout: .milliseconds(300)))
        #expect(await kind {
            _ = try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(listener.port)/"))
        } == .connectTimeout)
    }

    @Test(arguments: ["http://example.com/", "http://10.0.0.1/", "http://[2001:db8::1]/", "http://128.0.0.1/"])
    func plainHTTPToNonLoopbackRefusedBeforeConnect(_ url: String) async {
        #expect(await kind { _ = try await HTTPClient().send(HTTPClientRequest(url: url)) } == .insecureScheme)
    }

    @Test func headerInjectionRefused() async {
        let request = HTTPClientRequest(url: "http://127.0.0.1:1/", headers: ["X-A": "1\r\nX-B: 2"])
        #expect(await kind { _ = try await HTTPClient().send(request) } == .invalidRequest)
        let badMethod = HTTPClientRequest(method: "GET /x", url: "http://127.0.0.1:1/")
        #expect(await kind { _ = try await HTTPClient().send(badMethod) } == .invalidRequest)
    }

    @Test func ipv6Loopback() async throws {
        guard let server = try? ScriptedServer(host: "::1", handler: { _ in
            .reply(Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nv6".utf8))
        }) else {
            print("note: ::1 is not available here; IPv6 loopback test skipped")
            return
        }
        defer { server.stop() }
        let response = try await HTTPClient().send(HTTPClientRequest(url: "http://[::1]:\(server.port)/"))
        #expect(response.body == Array("v6".utf8))
        #expect(try #require(server.requests.first).head.contains("Host: [::1]:\(server.port)"))
    }
}

extension HTTPClientError {
    /// The kind of the `HTTPClientError` that `body` throws; nil when it throws none.
    static func kind(of body: () async throws -> Void) async -> Kind? {
        do {
            try await body()
            return nil
        } catch {
            return (error as? HTTPClientError)?.kind
        }
    }
}
