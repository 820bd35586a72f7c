import Testing
@testable import HTTPCore

struct HTTPClientURLTests {
    @Test func splitsSchemeHostPortAndTarget() throws {
        let url = try HTTPClientURL(parsing: "HTTPS://AppleID.Apple.com:8443/auth/keys?x=1#frag")
        #expect(url.scheme == .https)
        #expect(url.host == "appleid.apple.com")
        #expect(url.port == 8443)
        #expect(url.target == "/auth/keys?x=1")
        #expect(url.hostHeader == "appleid.apple.com:8443")
    }

    @Test func defaultsPortAndPath() throws {
        let https = try HTTPClientURL(parsing: "https://example.com")
        #expect(https.port == 443)
        #expect(https.target == "/")
        #expect(https.hostHeader == "example.com")
        let http = try HTTPClientURL(parsing: "http://localhost?q")
        #expect(http.port == 80)
        #expect(http.target == "/?q")
    }

    @Test func parsesIPv6Literal() throws {
        let url = try HTTPClientURL(parsing: "http://[::1]:8080/x")
        #expect(url.host == "::1")
        #expect(url.port == 8080)
        #expect(url.isIPLiteral)
        #expect(url.isLoopbackHost)
        #expect(url.hostHeader == "[::1]:8080")
    }

    @Test(arguments: [
        "ftp://example.com/", "example.com/path", "https://", "https://exa mple.com/", "https://user@example.com/",
        "https://example.com:0/", "https://example.com:65536/", "https://example.com:/", "https://example.com:8a/",
        "https://[::1/", "https://[nonsense]/", "https://[::1]x/", "https://ex_ample.com/", "https://é.com/",
        "https://example.com/\r\nX: y",
    ])
    func refusesInvalidURLs(_ text: String) {
        let error = #expect(throws: HTTPClientError.self) { try HTTPClientURL(parsing: text) }
        #expect(error?.kind == .invalidURL)
    }

    @Test func acceptsPortBoundaries() throws {
        #expect(try HTTPClientURL(parsing: "https://example.com:1/").port == 1)
        #expect(try HTTPClientURL(parsing: "https://example.com:65535/").port == 65535)
    }

    @Test(arguments: ["localhost", "127.0.0.1", "127.255.0.9", "[::1]"])
    func loopbackHosts(_ host: String) throws {
        #expect(try HTTPClientURL(parsing: "http://\(host)/").isLoopbackHost)
    }

    @Test(arguments: ["example.com", "128.0.0.1", "10.0.0.1", "[::2]", "localhost.example.com", "[::ffff:8.8.8.8]"])
    func nonLoopbackHosts(_ host: String) throws {
        #expect(try !HTTPClientURL(parsing: "http://\(host)/").isLoopbackHost)
    }
}
