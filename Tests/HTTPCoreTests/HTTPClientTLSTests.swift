import TestSupport
import Testing
@testable import HTTPCore

/// `https://` against a loopback TLS server using certificates made at test time by `ClientTestCertificates`.
struct HTTPClientTLSTests {
    let certificates = ClientTestCertificates.shared
    /// The connect timeout (it covers the handshake), longer under a sanitizer. These tests are about what the
    /// handshake verifies, not about time: six times the client's default of 5 s, so that a test process starved of
    /// CPU for some seconds (every test of the parallel suite starts at once, on two cores) fails none of them.
    static let connectTimeout = Duration.seconds(30 * Sanitizer.timeScale)

    func serve(_ pair: (chain: String, key: String)) throws -> ScriptedServer {
        try ScriptedServer(tls: certificates.serverContext(pair)) { request in
            let body = "secure " + (request.head.split(separator: "\r\n").first.map(String.init) ?? "")
            return .reply(Array("HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8))
        }
    }

    func failure(_ url: String, extraCAFile: String?) async -> HTTPClientError? {
        do {
            let configuration = HTTPClient.Configuration(connectTimeout: Self.connectTimeout, extraCAFile: extraCAFile)
            _ = try await HTTPClient(configuration: configuration).send(HTTPClientRequest(url: url))
            return nil
        } catch {
            return error as? HTTPClientError
        }
    }

    @Test(arguments: ["localhost", "127.0.0.1"])
    func goodCertificateWithExtraCA(_ host: String) async throws {
        let server = try serve(certificates.good)
        defer { server.stop() }
        let client = HTTPClient(configuration: .init(connectTimeout: Self.connectTimeout,
                                                     extraCAFile: certificates.caFile))
        let response = try await client.send(HTTPClientRequest(url: "https://\(host):\(server.port)/auth/keys"))
        #expect(response.status == .ok)
        #expect(response.body == Array("secure GET /auth/keys HTTP/1.1".utf8))
    }

    /// A trust store file given in the configuration (`SSL_CERT_FILE` from `.env`) replaces OpenSSL's default file;
    /// one that cannot be loaded fails the request saying so.
    @Test func aTrustStoreFileIsUsedInPlaceOfTheSystemsFile() async throws {
        let server = try serve(certificates.good)
        defer { server.stop() }
        let client = HTTPClient(configuration: .init(connectTimeout: Self.connectTimeout,
                                                     trustStoreFile: certificates.caFile))
        let response = try await client.send(HTTPClientRequest(url: "https://localhost:\(server.port)/auth/keys"))
        #expect(response.status == .ok)
        let missing = HTTPClient(configuration: .init(connectTimeout: Self.connectTimeout,
                                                      trustStoreFile: "/nonexistent/ca.pem"))
        await #expect { _ = try await missing.send(HTTPClientRequest(url: "https://localhost:\(server.port)/")) } throws: {
            "\($0)".contains("trust store file /nonexistent/ca.pem")
        }
    }

    @Test(arguments: [
        "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n{\"keys\":[]}",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\n{\"keys\r\n5\r\n\":[]}\r\n0\r\n\r\n",
    ])
    func framingOverTLS(_ reply: String) async throws {
        let server = try ScriptedServer(tls: certificates.serverContext(certificates.good)) { _ in .reply(Array(reply.utf8)) }
        defer { server.stop() }
        let client = HTTPClient(configuration: .init(connectTimeout: Self.connectTimeout,
                                                     extraCAFile: certificates.caFile))
        let response = try await client.send(HTTPClientRequest(url: "https://localhost:\(server.port)/auth/keys"))
        #expect(response.body == Array("{\"keys\":[]}".utf8))
    }

    /// A body that runs until the connection closes is complete only with the peer's close_notify (RFC 9112 §9.8):
    /// a TCP close without it could be anyone's, cutting the body short. Framed bodies need no alert. Found by a
    /// review: the cut body was taken as whole.
    @Test(arguments: ["Connection: close\r\n", "Transfer-Encoding: gzip\r\n", ""])
    func aBodyUntilCloseCutWithoutCloseNotifyIsAnError(_ framing: String) async throws {
        let reply = "HTTP/1.1 200 OK\r\n\(framing)Content-Type: application/json\r\n\r\n{\"keys\":[{\"kid\":\"A\"}"
        let server = try ScriptedServer(tls: certificates.serverContext(certificates.good)) { _ in
            .replyAndCut(Array(reply.utf8))
        }
        defer { server.stop() }
        let client = HTTPClient(configuration: .init(connectTimeout: Self.connectTimeout,
                                                     extraCAFile: certificates.caFile))
        await #expect(throws: HTTPClientError.self) {
            _ = try await client.send(HTTPClientRequest(url: "https://localhost:\(server.port)/auth/keys"))
        }
        let framed = try ScriptedServer(tls: certificates.serverContext(certificates.good)) { _ in
            .replyAndCut(Array("HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n{\"keys\":[]}".utf8))
        }
        defer { framed.stop() }
        let response = try await client.send(HTTPClientRequest(url: "https://localhost:\(framed.port)/auth/keys"))
        #expect(response.body == Array("{\"keys\":[]}".utf8), "a whole framed body needs no close_notify")
    }

    @Test func wrongHostName() async throws {
        let server = try serve(certificates.wrongHost)
        defer { server.stop() }
        let error = await failure("https://localhost:\(server.port)/", extraCAFile: certificates.caFile)
        #expect(error?.kind == .tlsHandshakeFailed)
        #expect(error?.detail.contains("hostname mismatch") == true)
    }

    @Test func wrongIPAddress() async throws {
        let server = try serve(certificates.wrongHost)
        defer { server.stop() }
        let error = await failure("https://127.0.0.1:\(server.port)/", extraCAFile: certificates.caFile)
        #expect(error?.kind == .tlsHandshakeFailed)
        #expect(error?.detail.contains("IP address mismatch") == true)
    }

    @Test func expiredCertificate() async throws {
        let server = try serve(certificates.expired)
        defer { server.stop() }
        let error = await failure("https://localhost:\(server.port)/", extraCAFile: certificates.caFile)
        #expect(error?.kind == .tlsHandshakeFailed)
        #expect(error?.detail.contains("certificate has expired") == true)
    }

    @Test func unknownCA() async throws {
        let server = try serve(certificates.unknownCA)
        defer { server.stop() }
        let error = await failure("https://localhost:\(server.port)/", extraCAFile: certificates.caFile)
        #expect(error?.kind == .tlsHandshakeFailed)
        #expect(error?.detail.contains("unable to get local issuer certificate") == true)
    }

    /// The test CA is in no system store; `SSL_CERT_FILE` is not set by any test (setenv races with getenv).
    @Test func testCANotTrustedBySystemStore() async throws {
        let server = try serve(certificates.good)
        defer { server.stop() }
        let error = await failure("https://localhost:\(server.port)/", extraCAFile: nil)
        #expect(error?.kind == .tlsHandshakeFailed)
        #expect(error?.detail.contains("certificate verify failed") == true)
    }

    @Test func unreadableCAFile() async throws {
        let server = try serve(certificates.good)
        defer { server.stop() }
        let error = await failure("https://localhost:\(server.port)/", extraCAFile: certificates.directory + "/missing.pem")
        #expect(error?.kind == .tlsHandshakeFailed)
        #expect(error?.detail.contains("missing.pem") == true)
        #expect(server.requests.isEmpty)
    }

    @Test func handshakeTimeoutOnSilentServer() async throws {
        let server = try ScriptedServer { _ in .reply([]) }
        defer { server.stop() }
        let client = HTTPClient(configuration: .init(connectTimeout: .milliseconds(300), extraCAFile: certificates.caFile))
        let error: HTTPClientError? = await {
            do {
                _ = try await client.send(HTTPClientRequest(url: "https://127.0.0.1:\(server.port)/"))
                return nil
            } catch { return error as? HTTPClientError }
        }()
        #expect(error?.kind == .connectTimeout)
    }
}
