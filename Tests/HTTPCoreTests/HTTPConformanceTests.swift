import TestSupport
import Testing
@testable import HTTPCore

/// RFC 9110 and 9112 points the probes found: a 304's framing, the Host grammar, and the header timer around an
/// empty line between requests.
@Suite(.timeLimit(.minutes(1)))
struct HTTPConformanceTests {
    static let scale = Sanitizer.timeScale

    /// RFC 9110 §8.6: a 304 may carry Content-Length only as the 200's would; the server knows no 200, so none.
    @Test func notModifiedCarriesNoContentLength() async throws {
        let responder = ClosureResponder { request, _ in
            request.path == "/cached" ? HTTPResponse(status: .notModified, headers: ["ETag": "\"v1\""])
                                      : HTTPResponse(string: "fresh")
        }
        try await withServer(responder: responder) { _, port in
            let client = try RawClient(port: port)
            try client.send("GET /cached HTTP/1.1\r\nHost: a\r\n\r\nGET /cached HTTP/1.1\r\nHost: a\r\n\r\n")
            for _ in 0..<2 {
                let response = try await client.readResponse()
                #expect(response.status == 304)
                #expect(response.headers["content-length"] == nil)
                #expect(response.headers["etag"] == "\"v1\"")
            }
            try client.send("GET /other HTTP/1.1\r\nHost: a\r\n\r\n")
            let fresh = try await client.readResponse()
            #expect(fresh.text == "fresh" && fresh.headers["content-length"] == "5")
        }
    }

    /// `Host = uri-host [ ":" port ]` (RFC 9110 §7.2, RFC 3986 §3.2.2); anything else is 400 (RFC 9112 §3.2).
    @Test(arguments: [
        ("a:b:c", 400), ("[::1", 400), ("%zz", 400), ("%4", 400), ("a%", 400), (":80", 400), ("[::1]x", 400),
        ("[]", 400), ("[::g]", 400), ("[1.2.3.4]", 400), ("a:8o", 400), ("a@b", 400), ("[v1]", 400),
        ("a", 200), ("a:80", 200), ("a:", 200), ("[::1]", 200), ("[::1]:8080", 200), ("127.0.0.1:8080", 200),
        ("%41bc.example", 200), ("[v1.x:y]", 200), ("[::ffff:1.2.3.4]", 200), ("xn--bcher-kva.example", 200),
        ("a.b-c_d~e!$&'()*+,;=", 200),
    ])
    func hostValues(_ host: String, _ status: Int) {
        #expect(HTTPRequestParser.status("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n") == status, "\(host)")
    }

    @Test func anInvalidHostIs400OverTheWire() async throws {
        try await withServer { _, port in
            for host in ["a:b:c", "[::1", "%zz"] {
                let client = try RawClient(port: port)
                try client.send("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n")
                let response = try await client.readResponse()
                #expect(response.status == 400)
                #expect(response.text == #"{"error":true,"reason":"Invalid Host header"}"#)
            }
        }
    }

    /// RFC 9112 §2.2: an empty line before a request is ignored, and it is no byte of that request. A CRLF after the
    /// first answer, then a pause longer than the header timeout, then the head: had the CRLF started the head's
    /// timer, the server would have answered 408 during the pause.
    @Test func aStrayEmptyLineDoesNotStartTheHeaderTimer() async throws {
        // The head goes in one write: two writes 200 ms apart were once 3 s apart on a loaded machine (the whole
        // suite starting on two cores), and the head's own timeout ended it.
        let limits = HTTPLimits(headerTimeout: .seconds(3 * Self.scale), idleTimeout: .seconds(30 * Self.scale))
        try await withServer(limits: limits) { _, port in
            let client = try RawClient(port: port)
            try client.send("GET /first HTTP/1.1\r\nHost: a\r\n\r\n")
            #expect(try await client.readResponse().status == 200)
            try client.send("\r\n")
            try await Task.sleep(for: .milliseconds(3500 * Self.scale))
            try client.send("GET /second HTTP/1.1\r\nHost: a\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "GET /second 0\n")
        }
    }
}
