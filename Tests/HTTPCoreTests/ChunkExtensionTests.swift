import Testing
@testable import HTTPCore

/// Chunk extensions (RFC 9112 §7.1.1): whitespace around `=` on either side, and at most `maxChunkExtensionBytes`
/// of them in one request, all chunks together; one byte more is 400 and the connection closes.
@Suite(.timeLimit(.minutes(1)))
struct ChunkExtensionTests {
    static let head = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"

    /// A chunked body of `chunks` one-byte chunks whose extensions (`;` and a name) come to `total` bytes in all.
    static func body(extensionBytes total: Int, chunks: Int) -> String {
        var text = ""
        for index in 0..<chunks {
            let length = total / chunks + (index == chunks - 1 ? total % chunks : 0)
            text += "1;" + String(repeating: "e", count: length - 1) + "\r\nx\r\n"
        }
        return text + "0\r\n\r\n"
    }

    @Test(arguments: ["5;a =b", "5;a= b", "5;a = b", "5;a\t=\tb", "5 ;a=b", "5;a = \"q\" ;b", "5;a ;b=c", "5;a"])
    func whitespaceAroundEqualsIsAccepted(_ line: String) throws {
        let requests = try HTTPRequestParser.parseAll(Self.head + line + "\r\nhello\r\n0\r\n\r\n").get()
        #expect(requests.first?.body == Array("hello".utf8), "\(line.debugDescription)")
    }

    @Test(arguments: ["5;=b", "5;a==b", "5;a =", "5;a b", "5; =b", "5 ", "5;a=b c"])
    func malformedExtensionsAreStillRefused(_ line: String) {
        #expect(HTTPRequestParser.status(Self.head + line + "\r\nhello\r\n0\r\n\r\n") == 400, "\(line.debugDescription)")
    }

    @Test func extensionLimitAtNAndNPlusOne() {
        let limits = HTTPLimits(maxChunkExtensionBytes: 40)
        #expect(HTTPRequestParser.status(Self.head + Self.body(extensionBytes: 40, chunks: 4), limits: limits) == 200)
        let over = HTTPRequestParser.parseAll(Self.head + Self.body(extensionBytes: 41, chunks: 4), limits: limits)
        #expect(throws: HTTPParseError(.chunkExtensionsTooLarge)) { try over.get() }
        #expect(HTTPParseError(.chunkExtensionsTooLarge).status == .badRequest)
        let blanks = Self.head + "1" + String(repeating: " ", count: 40) + ";a\r\nx\r\n0\r\n\r\n"
        #expect(throws: HTTPParseError(.chunkExtensionsTooLarge)) {
            try HTTPRequestParser.parseAll(blanks, limits: limits).get()
        }
    }

    @Test func defaultLimitIs16KiBForTheWholeRequest() {
        #expect(HTTPLimits.defaultMaxChunkExtensionBytes == 16 * 1024)
        #expect(HTTPRequestParser.status(Self.head + Self.body(extensionBytes: 16 * 1024, chunks: 100)) == 200)
        #expect(HTTPRequestParser.status(Self.head + Self.body(extensionBytes: 16 * 1024 + 1, chunks: 100)) == 400)
    }

    /// Over the wire, byte by byte split as the kernel likes: N answered, N + 1 refused with 400 and closed.
    @Test func overTheLimitIs400AndTheConnectionCloses() async throws {
        try await withServer { _, port in
            let within = try RawClient(port: port)
            try within.send(Self.head + Self.body(extensionBytes: 16 * 1024, chunks: 64))
            let answer = try await within.readResponse()
            #expect(answer.status == 200)
            #expect(answer.text.hasPrefix("POST / 64\n"))

            let over = try RawClient(port: port)
            try over.send(Self.head + Self.body(extensionBytes: 16 * 1024 + 1, chunks: 64))
            let refusal = try await over.readResponse()
            #expect(refusal.status == 400)
            #expect(refusal.text == #"{"error":true,"reason":"Chunk extensions too large"}"#)
            #expect(refusal.headers["connection"] == "close")
            #expect(await over.isClosedByPeer())
        }
    }
}
