extension HTTPClientResponseReader {
    /// One line without its terminator, as its place in `buffer` (valid until the next read); CRLF or a bare LF
    /// ends it (RFC 9112 §2.2). Each byte read is charged to `budget`; running out is `responseTooLarge`.
    mutating func readLine(budget: inout Int) async throws -> Range<Int> {
        var scanned = 0  // bytes after `start` known to hold no LF; `fill` may move `start`
        while true {
            if let newline = buffer[(start + scanned)...].firstIndex(of: UInt8(ascii: "\n")) {
                let consumed = newline + 1 - start
                guard consumed <= budget else { throw tooLarge("header section") }
                budget -= consumed
                var end = newline
                if end > start, buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                let line = start..<end
                start = newline + 1
                return line
            }
            guard buffer.count - start <= budget else { throw tooLarge("header section") }
            scanned = buffer.count - start
            guard try await fill() else { throw closed("in the header section") }
        }
    }

    /// Exactly `count` bytes of body.
    mutating func readExactly(_ count: Int) async throws -> [UInt8] {
        while buffer.count - start < count {
            guard try await fill() else { throw closed("before the end of the body") }
        }
        let bytes = Array(buffer[start..<start + count])
        start += count
        return bytes
    }

    /// Everything until the server closes the connection (RFC 9112 §6.3 rule 8); over TLS, a close without the
    /// peer's close_notify is an error, since the body could have been cut (§9.8). Found by a review: it was taken as
    /// the body's end.
    mutating func readToEnd() async throws -> [UInt8] {
        transport.requireCleanEnd()
        while try await fill() {
            guard buffer.count - start <= maxBodySize else { throw tooLarge("body read to end of connection") }
        }
        guard buffer.count - start <= maxBodySize else { throw tooLarge("body read to end of connection") }
        let bytes = Array(buffer[start...])
        start = buffer.count
        return bytes
    }

    /// Appends one read to the buffer; false at the end of the stream.
    mutating func fill() async throws -> Bool {
        if sawEnd { return false }
        if start > 0, start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        guard try await transport.read(appendingTo: &buffer, maxCount: readSize, until: deadline) else {
            sawEnd = true
            return false
        }
        return true
    }

    func malformed(_ detail: String) -> HTTPClientError { HTTPClientError(.malformedResponse, detail) }
    func tooLarge(_ detail: String) -> HTTPClientError { HTTPClientError(.responseTooLarge, detail) }
    func closed(_ detail: String) -> HTTPClientError { HTTPClientError(.connectionClosed, "connection closed \(detail)") }
}
