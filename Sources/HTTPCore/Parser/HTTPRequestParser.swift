import Glibc

/// An incremental HTTP/1.1 request parser (RFC 9112): feed it bytes split anywhere, take requests out in order.
///
/// The header section is scanned in place in the connection's `ReadBuffer` and parsed once complete; body bytes
/// are copied straight into the request (de-chunked), so the input buffer never holds more than one head.
struct HTTPRequestParser {
    enum Event {
        /// More bytes are needed.
        case needMore
        /// A head announcing a body has been parsed; its body follows (used for `Expect: 100-continue`).
        case head(HTTPRequestHead)
        /// A complete request.
        case request(HTTPRequestHead)
    }

    private enum State {
        case head
        case fixedBody(remaining: Int)
        case chunkedBody(ChunkedDecoder)
    }

    let limits: HTTPLimits
    /// Where the body being read is counted, if anywhere.
    let gauge: BodyBytesGauge?
    /// What the body being read holds in `gauge`: its reserved length, or the bytes a chunked body has so far.
    private var heldBodyBytes = 0
    private var state = State.head
    private var scanned = 0
    private var lineStart = 0
    /// Where the field lines begin: after the request line's CRLF.
    private var fieldsStart = 0
    private var inRequestLine = true
    private var current: HTTPRequestHead?
    /// Whether the body being read is a HEAD request's.
    private var bodyIsHeads = false

    init(limits: HTTPLimits, gauge: BodyBytesGauge? = nil) {
        self.limits = limits
        self.gauge = gauge
    }

    /// True between requests: no byte of a next request has been consumed or scanned.
    var isBetweenRequests: Bool {
        if case .head = state { return scanned == 0 }
        return false
    }

    var isReadingBody: Bool {
        if case .head = state { return false }
        return true
    }

    /// Whether the request being read from `buffer`, which may have failed, is a HEAD: its answer, an error too,
    /// carries no content (RFC 9110 §9.3.2). A head that failed to parse is still in `buffer`.
    func isReadingHeadRequest(in buffer: ReadBuffer) -> Bool {
        if case .head = state { return buffer.readable.starts(with: Self.headMethodPrefix) }
        return bodyIsHeads
    }

    private static let headMethodPrefix = Array("HEAD ".utf8)

    /// Parses what `buffer` holds, consuming the bytes it uses.
    mutating func next(_ buffer: ReadBuffer) throws(HTTPParseError) -> Event {
        switch state {
        case .head:
            guard let head = try parseHead(buffer) else { return .needMore }
            bodyIsHeads = head.request.method == .HEAD
            switch head.framing {
            case .none:
                return .request(head)
            case .length(let length):
                current = head
                current?.request.body.reserveCapacity(length)
                hold(length)
                state = .fixedBody(remaining: length)
                return .head(head)
            case .chunked:
                current = head
                state = .chunkedBody(ChunkedDecoder(limits: limits))
                return .head(head)
            }
        case .fixedBody(let remaining):
            let available = buffer.readableCount
            guard available > 0 else { return .needMore }
            let take = min(available, remaining)
            current?.request.body.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer.readable[0..<take]))
            buffer.consume(take)
            if take == remaining { return finish() }
            state = .fixedBody(remaining: remaining - take)
            return .needMore
        case .chunkedBody(var decoder):
            guard var head = current else { return .needMore }
            current = nil
            let done = try decoder.decode(buffer, into: &head.request)
            hold(head.request.body.count)
            current = head
            state = .chunkedBody(decoder)
            return done ? finish() : .needMore
        }
    }

    private mutating func finish() -> Event {
        state = .head
        hold(0)
        guard let head = current else { return .needMore }
        current = nil
        return .request(head)
    }

    /// Drops the body being read, if any, and its count in `gauge`: the connection is cut and will parse no more.
    mutating func discardBody() {
        hold(0)
        current = nil
    }

    private mutating func hold(_ bytes: Int) {
        gauge?.change(from: heldBodyBytes, to: bytes)
        heldBodyBytes = bytes
    }

    /// 414 for a long target; 400 when not even the method ends within the limit (no SP: not a request line).
    /// Only the first `maxRequestLineLength + 1` bytes are looked at, so the verdict does not depend on how much
    /// more has arrived.
    private func overlongLine(_ bytes: UnsafeRawBufferPointer) -> HTTPParseError {
        let line = UnsafeRawBufferPointer(rebasing: bytes[0..<min(bytes.count, limits.maxRequestLineLength + 1)])
        return line.contains(HTTPGrammar.space) ? HTTPParseError(.requestLineTooLong) : HTTPParseError(.invalidMethod)
    }

    /// Finds the empty line ending the header section, refusing bare CR/LF and enforcing the size limits.
    /// Scanning resumes where the previous call stopped, so a trickled head costs linear time.
    private mutating func parseHead(_ buffer: ReadBuffer) throws(HTTPParseError) -> HTTPRequestHead? {
        var bytes = buffer.readable
        if scanned == 0 {
            var skip = 0
            while skip + 1 < bytes.count, bytes[skip] == HTTPGrammar.cr, bytes[skip + 1] == HTTPGrammar.lf { skip += 2 }
            if skip > 0 {
                buffer.consume(skip)
                bytes = buffer.readable
            }
            lineStart = 0
            inRequestLine = true
            if bytes.count == 1, bytes[0] == HTTPGrammar.cr { return nil }
        }
        guard let base = bytes.baseAddress else { return nil }
        var position = scanned
        while position < bytes.count,
              let found = memchr(base + position, Int32(HTTPGrammar.lf), bytes.count - position) {
            let lf = base.distance(to: UnsafeRawPointer(found))
            // Limits first, in the order the end-of-buffer checks below apply them: had the bytes come in
            // smaller reads, a line or head already over its limit would have been refused before this LF.
            if inRequestLine, lf - 1 > limits.maxRequestLineLength { throw overlongLine(bytes) }
            if !inRequestLine, lf - 1 > lineStart, lf + 1 - fieldsStart > limits.maxHeaderSectionSize {
                throw HTTPParseError(.headerSectionTooLarge)
            }
            guard lf > 0, bytes[lf - 1] == HTTPGrammar.cr else { throw HTTPParseError(.bareLineFeed) }
            if inRequestLine {
                inRequestLine = false
                fieldsStart = lf + 1
            } else if lf - 1 == lineStart {
                let head = try HTTPHeadParser.parse(UnsafeRawBufferPointer(rebasing: bytes[0..<lineStart]),
                                                    limits: limits)
                buffer.consume(lf + 1)
                scanned = 0
                return head
            }
            lineStart = lf + 1
            position = lf + 1
        }
        if inRequestLine, bytes.count > limits.maxRequestLineLength + 1 { throw overlongLine(bytes) }
        // Field lines past the limit, whatever comes next: a line's own CRLF would end it beyond, and the
        // section's closing CRLF ("\r" so far) is not part of it.
        if !inRequestLine, bytes.count - fieldsStart > limits.maxHeaderSectionSize + 1 {
            throw HTTPParseError(.headerSectionTooLarge)
        }
        scanned = bytes.count
        return nil
    }
}
