import Glibc
import IOCore

extension Connection {
    /// Serialises and sends `response`; returns whether the connection stays open, or nil if it failed.
    ///
    /// `.bytes` bodies get `Content-Length` (not 1xx, 204 or 304: a 304's would have to be the 200's, RFC 9110 §8.6,
    /// which only the responder knows) and are batched with pipelined responses up to the high-water mark;
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
                      framing: status.mayHaveBody ? .length(body.count) : .none)
            if !isHead && status.mayHaveBody {
                if body.count > Self.copyLimit {
                    return await flush(appending: body) ? keepAlive : nil
                }
                output.append(contentsOf: body)
            }
            if keepAlive, input.readableCount > 0, output.count < acceptor.limits.writeBufferHighWater,
               holdForTheNextAnswer() {
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

    /// Keeps `output` back so that the answers to the next pipelined requests, already read, can join it in one
    /// write; false when this task is not on its loop's thread (then it is flushed at once). Whatever is still
    /// held when the loop has nothing else to do, or `heldOutputDelay` later if it stays busy, goes out then: a
    /// handler that waits (on the database, on Apple) does not hold back answers that are ready. Found by a review:
    /// such an answer, its write committed, waited for the next handler to end, and was lost when the shutdown's
    /// grace period ended first. (Sent at the end of each loop iteration instead, pipelined answers that need no
    /// wait went out a few at a time: 13 % fewer pipelined `/health` answers a second; BENCHMARKS.md.)
    private func holdForTheNextAnswer() -> Bool {
        guard !holdingOutput else { return true }
        let connection = HeldOutput(connection: self)
        guard EventLoopIteration.runWhenIdle(key: ObjectIdentifier(self), atTheLatestAfter: Self.heldOutputDelay,
                                             { connection.send() }) else { return false }
        holdingOutput = true
        return true
    }

    /// The longest a ready answer waits for the next pipelined one's while the loop stays busy: longer than a batch
    /// of 16 pipelined requests takes to answer on a busy loop (64 connections' batches took about 13 ms at 80,000
    /// answers a second; with 2 ms here, batches were split in three and 7 % fewer answers went out).
    static let heldOutputDelay: Duration = .milliseconds(20)

    /// Writes what `output` holds back without waiting, unless a flush began meanwhile; what the socket does not
    /// take now waits for the connection's next flush. Runs on the loop's thread, between jobs, while this
    /// connection's task is suspended.
    func sendHeldOutput() {
        guard holdingOutput else { return }
        holdingOutput = false
        guard open else { return }
        var offset = 0
        sending: while offset < output.count {
            switch output.withUnsafeBytes({ transmit(UnsafeRawBufferPointer(rebasing: $0[offset...])) }) {
            case .transferred(let count): offset += count
            case .wouldBlock: break sending
            case .closed:
                open = false
                break sending
            }
        }
        output.removeFirst(offset)
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
        var dropped: [String] = []
        Self.appendHead(to: &output, status: status, headers: headers, version: version, keepAlive: keepAlive,
                        framing: framing, date: acceptor.dateCache.headerLine(), dropped: &dropped)
        for name in dropped {
            acceptor.logger.warning("dropped a response header field with invalid characters",
                                    metadata: ["field": "\(LogEscaping.escape(name.utf8.count <= 64 ? name : ""))"])
        }
    }

    /// `writeHead` on a local buffer: one exclusive access to `output` for the whole head, and each name and
    /// value checked and copied as one run of bytes. Fields with invalid characters go to `dropped` instead.
    static func appendHead(to out: inout [UInt8], status: HTTPStatus, headers: HTTPHeaders, version: HTTPVersion,
                           keepAlive: Bool, framing: ResponseFraming, date: [UInt8], dropped: inout [String]) {
        out.append(contentsOf: statusLinePrefix)
        HeadBytes.appendDecimal(status.code, to: &out)
        out.append(HTTPGrammar.space)
        if isSafeValue(status.reasonPhrase) { out.append(contentsOf: status.reasonPhrase.utf8) }
        out.append(contentsOf: crlf)
        for field in headers where !isServerOwned(field.name) {
            if !HeadBytes.appendField(field.name, field.value, to: &out) { dropped.append(field.name) }
        }
        out.append(contentsOf: date)
        switch framing {
        case .none: break
        case .length(let length):
            out.append(contentsOf: contentLengthPrefix)
            HeadBytes.appendDecimal(length, to: &out)
            out.append(contentsOf: crlf)
        case .chunked:
            out.append(contentsOf: chunkedLine)
        }
        if !keepAlive {
            out.append(contentsOf: closeLine)
        } else if version.minor == 0 {
            out.append(contentsOf: keepAliveLine)
        }
        out.append(contentsOf: crlf)
    }

    /// A JSON error in the project's shape, `{"error": true, "reason": "..."}`, closing the connection; to a HEAD
    /// request without the body, whose length the head still gives (RFC 9110 §9.3.2).
    func writeError(_ status: HTTPStatus, reason: String, version: HTTPVersion, toHead: Bool = false,
                    overPlainHTTP: Bool = false) {
        let body = Array("{\"error\":true,\"reason\":\"\(reason)\"}".utf8)
        var headers: HTTPHeaders = ["Content-Type": "application/json; charset=utf-8"]
        // RFC 6797 §7.2: no `Strict-Transport-Security` over plain HTTP (the TLS port's answer to a plain request).
        for (name, value) in acceptor.errorHeaders
        where !(overPlainHTTP && HTTPHeaders.equalsIgnoringCase(name, "strict-transport-security")) {
            headers.add(name: name, value: value)
        }
        writeHead(status: status, headers: headers, version: version, keepAlive: false, framing: .length(body.count))
        if !toHead { output.append(contentsOf: body) }
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
    static let contentLengthPrefix = Array("Content-Length: ".utf8)
    static let chunkedLine = Array("Transfer-Encoding: chunked\r\n".utf8)
    static let closeLine = Array("Connection: close\r\n".utf8)
    static let keepAliveLine = Array("Connection: keep-alive\r\n".utf8)
}

/// A connection handed to its loop's end-of-iteration task. The loop runs that task on the thread that runs the
/// connection's task, and only between jobs, so the two never touch the connection at once.
private struct HeldOutput: @unchecked Sendable {
    let connection: Connection

    func send() { connection.sendHeldOutput() }
}
