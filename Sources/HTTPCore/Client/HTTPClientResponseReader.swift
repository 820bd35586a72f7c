import Glibc

/// Reads one HTTP/1.1 response from a transport (RFC 9112): status line, header section, then the body
/// framed by `Transfer-Encoding: chunked`, `Content-Length`, or the end of the connection.
///
/// Field lines and chunked bodies go through the server's own request parser (`HTTPHeadParser.splitField`,
/// `ChunkedDecoder`), so a response is held to the same grammar and limits as a request. Every limit is enforced
/// while reading, before more memory is taken.
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
            var connection = HTTPHeadParser.FieldSummary()
            Self.forEachValue(of: headers, named: "Connection") { connection.noteConnection($0) }
            keepsConnection = isHTTP11 && !connection.connectionClose
            try await readBody(into: &response, method: method)
            if start != buffer.count { keepsConnection = false }
            return response
        }
    }

    /// Message body length rules of RFC 9112 §6.3, in order.
    private mutating func readBody(into response: inout HTTPClientResponse, method: HTTPMethod) async throws {
        if method == .HEAD || !response.status.mayHaveBody { return }
        var codings = 0
        var lastIsChunked = false
        Self.forEachValue(of: response.headers, named: "Transfer-Encoding") { value in
            HTTPHeadParser.FieldSummary.forEachListElement(value) { coding in
                codings += 1
                lastIsChunked = HTTPGrammar.equalsLowercase(coding, "chunked")
            }
        }
        if codings > 0 {
            // Content-Length beside Transfer-Encoding is ignored, but the connection is not trusted with another
            // request: such a message may be a sign of response splitting (RFC 9112 §6.3 rule 3). Found by a review.
            var lengthToo = false
            Self.forEachValue(of: response.headers, named: "Content-Length") { _ in lengthToo = true }
            if lengthToo { keepsConnection = false }
            if lastIsChunked {
                try await readChunked(into: &response)
            } else {
                keepsConnection = false
                response.body = try await readToEnd()
            }
            return
        }
        // The server's rules for a request's Content-Length: equal values count as one, anything else is malformed.
        var lengths = HTTPHeadParser.FieldSummary()
        Self.forEachValue(of: response.headers, named: "Content-Length") { lengths.noteContentLength($0) }
        guard !lengths.contentLengthInvalid, !lengths.contentLengthConflict else {
            throw malformed("invalid Content-Length")
        }
        guard let length = lengths.contentLength else {
            keepsConnection = false
            response.body = try await readToEnd()
            return
        }
        guard length <= maxBodySize else { throw tooLarge("Content-Length \(length)") }
        response.body = try await readExactly(length)
    }

    /// Chunked transfer coding with optional trailer section (RFC 9112 §7.1), decoded by the server's
    /// `ChunkedDecoder`: the same chunk-size, extension and trailer rules, bounded by `maxResponseSize` and the
    /// header limits.
    private mutating func readChunked(into response: inout HTTPClientResponse) async throws {
        var limits = HTTPLimits()
        limits.maxBodySize = maxBodySize
        limits.maxHeaderSectionSize = maxHeaderSize
        limits.maxHeaderCount = maxHeaderCount
        var decoder = ChunkedDecoder(limits: limits)
        let pending = ReadBuffer()
        var message = HTTPRequest(method: .GET, target: "/")
        buffer[start...].withUnsafeBytes { pending.append($0) }
        start = buffer.count
        while true {
            do {
                if try decoder.decode(pending, into: &message) { break }
            } catch {
                throw error.reason == .bodyTooLarge || error.reason == .headerSectionTooLarge
                    || error.reason == .tooManyHeaders ? tooLarge("chunked body") : malformed(error.reason.rawValue)
            }
            guard try await fill() else { throw closed("before the end of the body") }
            buffer[start...].withUnsafeBytes { pending.append($0) }
            start = buffer.count
        }
        // Bytes after the last chunk stay unread: they end the connection's reuse (`keepsConnection`).
        buffer = Array(pending.readable)
        start = 0
        response.body = message.body
        response.trailers = message.trailers
    }

    private mutating func readStatusLine(budget: inout Int) async throws -> (HTTPStatus, Bool) {
        let line = try await readLine(budget: &budget)
        let status = buffer.withUnsafeBufferPointer { Self.parseStatusLine(UnsafeBufferPointer(rebasing: $0[line])) }
        guard let status else { throw malformed("invalid status line") }
        return status
    }

    /// `status-line = HTTP-version SP status-code SP [ reason-phrase ]` (RFC 9112 §4), HTTP/1.0 or 1.1, a code of
    /// at least 100; with whether the version is 1.1. Nil when the line is not one.
    static func parseStatusLine(_ line: UnsafeBufferPointer<UInt8>) -> (HTTPStatus, Bool)? {
        let prefix: StaticString = "HTTP/1."
        guard line.count >= 12, let base = line.baseAddress,
              memcmp(base, prefix.utf8Start, prefix.utf8CodeUnitCount) == 0,
              line[7] == UInt8(ascii: "0") || line[7] == UInt8(ascii: "1"), line[8] == UInt8(ascii: " "),
              line[9..<12].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              line.count == 12 || line[12] == UInt8(ascii: " ") else {
            return nil
        }
        let code = line[9..<12].reduce(0) { $0 * 10 + Int($1 - 0x30) }
        guard code >= 100 else { return nil }
        let reason = line.count > 13 ? String(decoding: UnsafeBufferPointer(rebasing: line[13...]), as: UTF8.self) : nil
        return (HTTPStatus(code: code, reasonPhrase: reason), line[7] == UInt8(ascii: "1"))
    }

    /// A header or trailer section up to its empty line (RFC 9112 §5). A line that begins with a space or a tab
    /// continues the field before it (obsolete line folding): a user agent replaces the fold with a space (RFC 9112
    /// §5.2), where a server refuses it. Found by a review: the client refused it as a server does.
    private mutating func readFields(budget: inout Int) async throws -> HTTPHeaders {
        var fields: [HTTPHeaders.Field] = []
        while true {
            let line = buffer[try await readLine(budget: &budget)]
            if line.isEmpty { return HTTPHeaders(fields) }
            if let first = line.first, first == HTTPGrammar.space || first == HTTPGrammar.tab, !fields.isEmpty {
                fields[fields.count - 1].value = try Self.unfolded(fields[fields.count - 1].value, line)
                continue
            }
            guard fields.count < maxHeaderCount else { throw tooLarge("more than \(maxHeaderCount) header fields") }
            fields.append(try Self.parseField(line))
        }
    }

    /// `value` continued by a folded `line`, joined by one space; the line's own text is held to the field-value
    /// grammar as any value is.
    static func unfolded(_ value: String, _ line: ArraySlice<UInt8>) throws -> String {
        let continuation = try parseField(ArraySlice(Array("x:".utf8)) + line).value
        if continuation.isEmpty { return value }
        return value.isEmpty ? continuation : value + " " + continuation
    }

    /// One field line, by the server's field grammar (RFC 9110 §5, RFC 9112 §5): a token name, no whitespace
    /// before the colon, no obsolete line folding, a value of visible characters.
    static func parseField(_ line: ArraySlice<UInt8>) throws -> (name: String, value: String) {
        try line.withUnsafeBytes { bytes in
            do {
                let (name, value) = try HTTPHeadParser.splitField(bytes)
                return (HTTPGrammar.string(name), HTTPGrammar.string(value))
            } catch let error as HTTPParseError {
                throw HTTPClientError(.malformedResponse, "invalid header field (\(error.reason.rawValue))")
            }
        }
    }
}

extension HTTPClientResponseReader {
    /// Calls `body` with the value of each field named `name`, in order, read in place for the server parser's
    /// field rules (`HTTPHeadParser.FieldSummary`).
    static func forEachValue(of headers: HTTPHeaders, named name: String, _ body: (UnsafeRawBufferPointer) -> Void) {
        for field in headers where HTTPHeaders.equalsIgnoringCase(field.name, name) {
            var value = field.value
            value.withUTF8 { body(UnsafeRawBufferPointer($0)) }
        }
    }
}

extension HTTPHeaders {
    fileprivate mutating func add(_ field: (name: String, value: String)) { add(name: field.name, value: field.value) }
}
