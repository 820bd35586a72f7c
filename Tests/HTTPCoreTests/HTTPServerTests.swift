import IOCore
import Glibc
import Testing
@testable import HTTPCore

@Suite(.timeLimit(.minutes(1)))
struct HTTPServerTests {
    @Test func servesGetWithDateAndContentLength() async throws {
        try await withServer { _, port in
            let client = try RawClient(port: port)
            try client.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "Hello, World!")
            #expect(response.headers["content-length"] == "13")
            #expect(response.headers["date"]?.hasSuffix(" GMT") == true)
            #expect(response.headers["connection"] == nil)
        }
    }

    @Test func keepAliveServesManyRequestsOnOneConnection() async throws {
        try await withServer { _, port in
            let client = try RawClient(port: port)
            for i in 0..<20 {
                try client.send("GET /n\(i) HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(try await client.readResponse().text == "GET /n\(i) 0\n")
            }
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await withServer { _, port in
            let client = try RawClient(port: port)
            var batch = ""
            for i in 0..<10 { batch += "GET /p\(i) HTTP/1.1\r\nHost: x\r\n\r\n" }
            batch += "POST /body HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
            try client.send(batch)
            for i in 0..<10 { #expect(try await client.readResponse().text == "GET /p\(i) 0\n") }
            #expect(try await client.readResponse().text == "POST /body 5\nhello")
        }
    }

    @Test func http10ClosesUnlessKeepAlive() async throws {
        try await withServer { _, port in
            let client = try RawClient(port: port)
            try client.send("GET /a HTTP/1.0\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.headers["connection"] == "close")
            #expect(await client.isClosedByPeer())

            let kept = try RawClient(port: port)
            try kept.send("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(try await kept.readResponse().headers["connection"] == "keep-alive")
            try kept.send("GET /b HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(try await kept.readResponse().text == "GET /b 0\n")
        }
    }

    @Test func connectionCloseIsHonoured() async throws {
        try await withServer { _, port in
            let client = try RawClient(port: port)
            try client.send("GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(try await client.readResponse().headers["connection"] == "close")
            #expect(await client.isClosedByPeer())
        }
    }

    @Test func headHasLengthButNoBody() async throws {
        try await withServer { _, port in
            let client = try RawClient(port: port)
            try client.send("HEAD /plaintext HTTP/1.1\r\nHost: x\r\n\r\nGET /after HTTP/1.1\r\nHost: x\r\n\r\n")
            let head = try await client.readResponse(head: true)
            #expect(head.headers["content-length"] == "13")
            #expect(try await client.readResponse().text == "GET /after 0\n")
        }
    }

    @Test func noContentHasNoLength() async throws {
        try await withServer { _, port in
            let client = try RawClient(port: port)
            try client.send("GET /nocontent HTTP/1.1\r\nHost: x\r\n\r\nGET /x HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 204)
            #expect(response.headers["content-length"] == nil)
            #expect(try await client.readResponse().status == 200)
        }
    }

    @Test func chunkedRequestWithExtensionsAndTrailers() async throws {
        try await withServer { _, port in
            let client = try RawClient(port: port)
            try client.send("POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                            + "5;name=value;q=\"a b\"\r\nhello\r\n6\r\n world\r\n0\r\nX-Check: 1\r\n\r\n")
            #expect(try await client.readResponse().text == "POST /c 11\nhello world\ntrailer X-Check=1")
        }
    }

    @Test func streamResponseIsChunkedFor11AndCloseDelimitedFor10() async throws {
        try await withServer { _, port in
            let client = try RawClient(port: port)
            try client.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.headers["transfer-encoding"] == "chunked")
            #expect(response.text == "part0;part1;part2;")
            try client.send("GET /again HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().status == 200)

            let old = try RawClient(port: port)
            try old.send("GET /stream HTTP/1.0\r\n\r\n")
            let text = String(decoding: await old.readToEnd(), as: UTF8.self)
            #expect(text.hasSuffix("\r\n\r\npart0;part1;part2;"))
            #expect(text.contains("Connection: close"))
            #expect(!text.contains("chunked"))
        }
    }

    @Test func expectContinueSendsInterimResponse() async throws {
        try await withServer { _, port in
            let client = try RawClient(port: port)
            try client.send("POST /e HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
            #expect(try await client.readResponse().status == 100)
            try client.send("data")
            #expect(try await client.readResponse().text == "POST /e 4\ndata")
        }
    }

    @Test func expectContinueOverLimitGets413WithoutContinue() async throws {
        try await withServer(limits: HTTPLimits(maxBodySize: 10)) { _, port in
            let client = try RawClient(port: port)
            try client.send("POST /e HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\nExpect: 100-continue\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 413)
            #expect(await client.isClosedByPeer())
        }
    }

    @Test func oversizedBodySentAnywayStillGets413() async throws {
        try await withServer(limits: HTTPLimits(maxBodySize: 1024)) { _, port in
            let client = try RawClient(port: port)
            let body = [UInt8](repeating: 0x7A, count: 600 * 1024)
            try? client.send(Array("POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body)
            let response = try await client.readResponse()
            #expect(response.status == 413)
            #expect(response.text.contains("Request body too large"))
        }
    }

    @Test func unknownExpectationIs417() async throws {
        try await withServer { _, port in
            let client = try RawClient(port: port)
            try client.send("POST /e HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nExpect: something\r\n\r\nx")
            #expect(try await client.readResponse().status == 417)
        }
    }

    /// An error the parser answers, to a HEAD request: the head says the length, and no byte of content follows
    /// (RFC 9110 §9.3.2), whether the head failed or its body did. Found by an audit.
    @Test(arguments: [
        ("HEAD /e HTTP/1.1\r\nHost: x\r\nExpect: something\r\nContent-Length: 1\r\n\r\nx", 417),
        ("HEAD /e HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", 400),
        ("HEAD /e HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
    ])
    func parserErrorsToHEADCarryNoContent(request: String, status: Int) async throws {
        try await withServer { _, port in
            let client = try RawClient(port: port)
            try client.send(request)
            let response = try await client.readResponse(head: true)
            #expect(response.status == status)
            #expect(Int(response.headers["Content-Length"] ?? "") ?? 0 > 0)
            #expect(await client.readToEnd().isEmpty, "nothing after the head but the close")
        }
    }

    @Test func largeResponseReachesASlowReader() async throws {
        try await withServer { _, port in
            let client = try RawClient(port: port)
            try client.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
            try await Task.sleep(for: .milliseconds(200))
            let response = try await client.readResponse()
            #expect(response.body.count == 4 * 1024 * 1024)
        }
    }

    @Test func errorResponsesAreJSONAndClose() async throws {
        try await withServer { _, port in
            let client = try RawClient(port: port)
            try client.send("GET /a HTTP/1.1\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 400)
            #expect(response.headers["content-type"]?.hasPrefix("application/json") == true)
            #expect(response.text == "{\"error\":true,\"reason\":\"Missing Host header\"}")
            #expect(await client.isClosedByPeer())
        }
    }

    @Test func responseHeaderInjectionIsDropped() async throws {
        let responder = ClosureResponder { _, _ in
            HTTPResponse(status: HTTPStatus(code: 200, reasonPhrase: "OK\r\nX-Evil: 1"),
                         headers: ["X-Good": "yes", "X-Bad": "a\r\nSet-Cookie: stolen=1", "Bad Name": "v"],
                         string: "body")
        }
        try await withServer(responder: responder) { _, port in
            let client = try RawClient(port: port)
            try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.headers["x-good"] == "yes")
            #expect(response.headers["x-bad"] == nil)
            #expect(response.headers["set-cookie"] == nil)
            #expect(response.headers["x-evil"] == nil)
            #expect(response.text == "body")
        }
    }

    @Test func servesIPv6WhenAvailable() async throws {
        let probe = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard probe >= 0 else { return }
        close(probe)
        guard (try? Listener(host: "::1", port: 0)) != nil else {
            print("note: IPv6 loopback unavailable; skipping")
            return
        }
        try await withServer(host: "::1") { _, port in
            let client = try RawClient(port: port, host: "::1")
            try client.send("GET /v6 HTTP/1.1\r\nHost: [::1]\r\n\r\n")
            #expect(try await client.readResponse().text == "GET /v6 0\n")
        }
    }

    /// A port past 65535 was cut to its low 16 bits by getaddrinfo, and the server listened there.
    @Test(arguments: [-1, 65536, 103_616])
    func aPortOutsideTheRangeIsRefused(_ port: Int) {
        let error = #expect(throws: SocketError.self) { try Listener(host: "127.0.0.1", port: port) }
        #expect(error?.code == EINVAL)
        #expect(error?.description.hasPrefix("bind(127.0.0.1:\(port)) failed") == true)
    }

    /// The start's check of its address binds without listening: nothing connects to it meanwhile (a probe waiting
    /// for the port would take it for the server), and a port another socket listens on is still refused.
    @Test func theAddressCheckAcceptsNoConnectionAndStillFindsAPortInUse() throws {
        let check = try Listener(host: "127.0.0.1", port: 0, listening: false)
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(probe) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(check.port).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(connected == -1 && errno == ECONNREFUSED)

        let serving = try Listener(host: "127.0.0.1", port: 0)
        let error = #expect(throws: SocketError.self) { try HTTPServer.checkAddress(hostname: "127.0.0.1", port: serving.port) }
        #expect(error?.code == EADDRINUSE)
    }

    /// getaddrinfo's codes are EAI_ ones, which strerror calls "Unknown error -2".
    @Test func aFailedAddressLookupSaysWhyInGetaddrinfosWords() {
        let error = SocketError(getaddrinfo: "nowhere", status: EAI_NONAME)
        #expect(error.description == "getaddrinfo(nowhere) failed: \(String(cString: gai_strerror(EAI_NONAME)))")
        #expect(!error.description.contains("Unknown error"))
    }

    @Test func loopCountDefaultsToUsableCPUs() {
        #expect(CPUCount.usable >= 1)
    }
}
