import Glibc

extension Connection {
    /// Serialises and sends `response`; returns whether the connection stays open, or nil if it failed.
    ///
    /// `.bytes` bodies get `Content-Length` and are batched with pipelined responses up to the high-water mark;
    /// `.stream` bodies are sent chunked (close-delimited for HTTP/1.0) with each write awaiting the socket.
    func send(_ response: HTTPResponse, for head: HTTPRequestHead, keepAlive requested: Bool) async -> Bool? {
        var keepAlive = requested
        if let connection = response.headers["connection"], connection.lowercased().contains("close") {
            keepAlive = false
        }
        let request = head.request
        let isHead = request.method == .HEAD
        let status = response.status
        switch response.body {
        case .bytes(let body):
            writeHead(status: status, headers: response.headers, version: request.version, keepAlive: keepAlive,
                      framing: status.mayHaveBody || status.code == 304 ? .length(body.count) : .none)
            if !isHead && status.mayHaveBody {
                if body.count > Self.copyLimit {
                    return await flush(appending: body) ? keepAlive : nil
                }
                output.append(contentsOf: body)
            }
            if keepAlive, input.readableCount > 0, output.count < acceptor.limits.writeBufferHighWater {
                return true
            }
            return await flush() ? keepAlive : nil
        case .stream(let produce):
            let chunked = request.version.minor >= 1
            if !chunked { keepAlive = false }
            writeHead(status: status, headers: response.headers, version: request.version, keepAlive: keepAlive,
                      framing: status.mayHaveBody ? (chunked ? .chunked : .none) : .none)
            guard await flush() else { return nil }
            guard !isHead, status.mayHaveBody else { return keepAlive }
            let writer = StreamBodyWriter(connection: self, chunked: chunked)
            do {
                try await produce(writer)
            } catch {
                writer.finish()
                acceptor.logger.debug("response stream failed", metadata: ["error": "\(error)"])
                return nil
            }
            writer.finish()
            if chunked { output.append(contentsOf: Self.lastChunk) }
            return await flush() ? keepAlive : nil
        }
    }

    /// Bodies larger than this are not copied behind the head: both go out with one `writev`.
    static let copyLimit = 16 * 1024

    static let lastChunk = Array("0\r\n\r\n".utf8)

    enum ResponseFraming {
        case none
        case length(Int)
        case chunked
    }

    /// Status line, the response's fields (minus the ones the server owns), `Date`, framing and `Connection`.
    func writeHead(status: HTTPStatus, headers: HTTPHeaders, version: HTTPVersion, keepAlive: Bool,
                   framing: ResponseFraming) {
        output.append(contentsOf: Self.statusLinePrefix)
        appendDecimal(status.code)
        output.append(HTTPGrammar.space)
        if Self.isSafeValue(status.reasonPhrase) { output.append(contentsOf: status.reasonPhrase.utf8) }
        output.append(contentsOf: Self.crlf)
        for field in headers where !Self.isServerOwned(field.name) {
            guard Self.isSafeName(field.name), Self.isSafeValue(field.value) else {
                acceptor.logger.warning("dropped a response header field with invalid characters",
                                        metadata: ["field": "\(field.name.utf8.count <= 64 ? field.name : "")"])
                continue
            }
            output.append(contentsOf: field.name.utf8)
            output.append(contentsOf: Self.colonSpace)
            output.append(contentsOf: field.value.utf8)
            output.append(contentsOf: Self.crlf)
        }
        output.append(contentsOf: acceptor.dateCache.headerLine())
        switch framing {
        case .none: break
        case .length(let length):
            output.append(contentsOf: Self.contentLengthPrefix)
            appendDecimal(length)
            output.append(contentsOf: Self.crlf)
        case .chunked:
            output.append(contentsOf: Self.chunkedLine)
        }
        if !keepAlive {
            output.append(contentsOf: Self.closeLine)
        } else if version.minor == 0 {
            output.append(contentsOf: Self.keepAliveLine)
        }
        output.append(contentsOf: Self.crlf)
    }

    /// A JSON error in the project's shape, `{"error": true, "reason": "..."}`, closing the connection.
    func writeError(_ status: HTTPStatus, reason: String, version: HTTPVersion) {
        let body = Array("{\"error\":true,\"reason\":\"\(reason)\"}".utf8)
        writeHead(status: status, headers: ["Content-Type": "application/json; charset=utf-8"], version: version,
                  keepAlive: false, framing: .length(body.count))
        output.append(contentsOf: body)
    }

    func appendDecimal(_ value: Int) {
        guard value >= 10 else {
            output.append(UInt8(0x30 + value))
            return
        }
        appendDecimal(value / 10)
        output.append(UInt8(0x30 + value % 10))
    }

    /// A field name must be a token (RFC 9110 §5.1): this also stops header injection through names.
    static func isSafeName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy(HTTPGrammar.isTokenChar)
    }

    /// No CR, LF, NUL or other CTL but HTAB in a value or reason phrase (RFC 9110 §5.5): no response splitting.
    static func isSafeValue(_ value: String) -> Bool {
        value.utf8.allSatisfy(HTTPGrammar.isFieldValueChar)
    }

    static func isServerOwned(_ name: String) -> Bool {
        switch name.utf8.count {
        case 4: HTTPHeaders.equalsIgnoringCase(name, "date")
        case 10: HTTPHeaders.equalsIgnoringCase(name, "connection")
        case 14: HTTPHeaders.equalsIgnoringCase(name, "content-length")
        case 17: HTTPHeaders.equalsIgnoringCase(name, "transfer-encoding")
        default: false
        }
    }

    static let statusLinePrefix = Array("HTTP/1.1 ".utf8)
    static let crlf = Array("\r\n".utf8)
    static let colonSpace = Array(": ".utf8)
    static let contentLengthPrefix = Array("Content-Length: ".utf8)
    static let chunkedLine = Array("Transfer-Encoding: chunked\r\n".utf8)
    static let closeLine = Array("Connection: close\r\n".utf8)
    static let keepAliveLine = Array("Connection: keep-alive\r\n".utf8)
}
