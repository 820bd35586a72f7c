/// Reads one HTTP/1.1 response from a transport (RFC 9112): status line, header section, then the body
/// framed by `Transfer-Encoding: chunked`, `Content-Length`, or the end of the connection.
///
/// Every limit is enforced while reading, before more memory is taken.
struct HTTPClientResponseReader {
    let transport: any HTTPClientTransport
    /// When the whole call must be over (monotonic ns).
    let deadline: UInt64
    let maxHeaderSize: Int
    let maxHeaderCount: Int
    let maxBodySize: Int
    var readSize = 16 * 1024

    var buffer: [UInt8] = []
    var start = 0
    var sawEnd = false
    /// Whether the connection can carry another request once this response has been read: HTTP/1.1, no
    /// `Connection: close`, a body framed by length or chunks, and nothing read past its end (RFC 9112 §9.3).
    private(set) var keepsConnection = false

    init(transport: any HTTPClientTransport, deadline: UInt64, configuration: HTTPClient.Configuration) {
        self.transport = transport
        self.deadline = deadline
        maxHeaderSize = configuration.maxHeaderSize
        maxHeaderCount = configuration.maxHeaderCount
        maxBodySize = configuration.maxResponseSize
    }

    /// Reads the final response, skipping interim 1xx responses (RFC 9110 §15.2).
    mutating func readResponse(method: HTTPMethod) async throws -> HTTPClientResponse {
        while true {
            var budget = maxHeaderSize
            let (status, isHTTP11) = try await readStatusLine(budget: &budget)
            let headers = try await readFields(budget: &budget)
            if (100..<200).contains(status.code) {
                guard status.code != 101 else { throw malformed("unexpected 101 Switching Protocols") }
                continue
            }
            var response = HTTPClientResponse(status: status, headers: headers)
            keepsConnection = isHTTP11 && !headers.values(for: "Connection")
                .flatMap { $0.split(separator: ",") }.contains { Self.trimmed($0).lowercased() == "close" }
            try await readBody(into: &response, method: method)
            if start != buffer.count { keepsConnection = false }
            return response
        }
    }

    /// Message body length rules of RFC 9112 §6.3, in order.
    private mutating func readBody(into response: inout HTTPClientResponse, method: HTTPMethod) async throws {
        if method == .HEAD || !response.status.mayHaveBody { return }
        let codings = response.headers.values(for: "Transfer-Encoding")
            .flatMap { $0.split(separator: ",") }
            .map { Self.trimmed($0).lowercased() }
        if !codings.isEmpty {
            if codings.last == "chunked" {
                try await readChunked(into: &response)
            } else {
                keepsConnection = false
                response.body = try await readToEnd()
            }
            return
        }
        let lengths = response.headers.values(for: "Content-Length").flatMap { $0.split(separator: ",") }
        guard let first = lengths.first else {
            keepsConnection = false
            response.body = try await readToEnd()
            return
        }
        let text = Self.trimmed(first)
        guard lengths.allSatisfy({ Self.trimmed($0) == text }), !text.isEmpty, text.count <= 18,
              text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let length = Int(text) else {
            throw malformed("invalid Content-Length")
        }
        guard length <= maxBodySize else { throw tooLarge("Content-Length \(length)") }
        response.body = try await readExactly(length)
    }

    /// Chunked transfer coding with optional trailer section (RFC 9112 §7.1).
    private mutating func readChunked(into response: inout HTTPClientResponse) async throws {
        var body: [UInt8] = []
        while true {
            var lineBudget = maxHeaderSize
            let line = try await readLine(budget: &lineBudget)
            let sizeText = Self.trimmed(String(decoding: line.prefix { $0 != UInt8(ascii: ";") }, as: UTF8.self))
            guard !sizeText.isEmpty, sizeText.count <= 15, let size = Int(sizeText, radix: 16),
                  sizeText.utf8.allSatisfy(Self.isHexDigit) else {
                throw malformed("invalid chunk size")
            }
            if size == 0 { break }
            guard size <= maxBodySize - body.count else { throw tooLarge("chunked body") }
            body += try await readExactly(size)
            guard try await readExactly(2) == [0x0D, 0x0A] else { throw malformed("missing CRLF after chunk data") }
        }
        var budget = maxHeaderSize
        response.trailers = try await readFields(budget: &budget)
        response.body = body
    }

    /// The status, and whether the server speaks HTTP/1.1 (an HTTP/1.0 answer ends its connection).
    private mutating func readStatusLine(budget: inout Int) async throws -> (HTTPStatus, Bool) {
        let line = try await readLine(budget: &budget)
        // status-line = HTTP-version SP status-code SP [ reason-phrase ] (RFC 9112 §4)
        guard line.count >= 12, line.starts(with: Array("HTTP/1.".utf8)),
              line[7] == UInt8(ascii: "0") || line[7] == UInt8(ascii: "1"), line[8] == UInt8(ascii: " "),
              line[9..<12].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              line.count == 12 || line[12] == UInt8(ascii: " ") else {
            throw malformed("invalid status line")
        }
        let code = line[9..<12].reduce(0) { $0 * 10 + Int($1 - 0x30) }
        guard code >= 100 else { throw malformed("invalid status code") }
        let reason = line.count > 13 ? String(decoding: line[13...], as: UTF8.self) : nil
        return (HTTPStatus(code: code, reasonPhrase: reason), line[7] == UInt8(ascii: "1"))
    }

    /// A header or trailer section up to its empty line (RFC 9112 §5).
    private mutating func readFields(budget: inout Int) async throws -> HTTPHeaders {
        var headers = HTTPHeaders()
        while true {
            let line = try await readLine(budget: &budget)
            if line.isEmpty { return headers }
            guard headers.count < maxHeaderCount else { throw tooLarge("more than \(maxHeaderCount) header fields") }
            headers.add(try Self.parseField(line))
        }
    }

    static func parseField(_ line: [UInt8]) throws -> (name: String, value: String) {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0,
              line[..<colon].allSatisfy(Self.isTokenCharacter) else {
            throw HTTPClientError(.malformedResponse, "invalid header field")
        }
        let value = line[(colon + 1)...]
        guard value.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
            throw HTTPClientError(.malformedResponse, "invalid header value")
        }
        return (String(decoding: line[..<colon], as: UTF8.self),
                Self.trimmed(String(decoding: value, as: UTF8.self)))
    }
}

extension HTTPHeaders {
    fileprivate mutating func add(_ field: (name: String, value: String)) { add(name: field.name, value: field.value) }
}
