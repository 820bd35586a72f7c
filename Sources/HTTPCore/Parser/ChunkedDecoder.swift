/// Decodes a chunked body (RFC 9112 §7.1) incrementally, byte split anywhere.
///
/// Chunk extensions are checked for syntax and skipped (§7.1.1); trailer fields are parsed like header fields
/// and kept in `HTTPRequest.trailers` (§7.1.2). Sizes are bounded by `maxBodySize`, the extensions of all chunks
/// together by `maxChunkExtensionBytes` (§7.1.1: a server ought to limit them), trailers by `maxHeaderSectionSize`.
struct ChunkedDecoder {
    private enum State {
        case size(digits: Int)
        case sizeWhitespace
        case extensions(ExtensionPhase)
        case sizeLF
        case data(remaining: Int)
        case dataCR
        case dataLF
        case trailers
    }

    /// Position inside `*( BWS ";" BWS ext-name [ BWS "=" BWS ext-val ] )` (RFC 9112 §7.1.1); `afterName` is the
    /// BWS between a name and its `=`.
    private enum ExtensionPhase {
        case beforeName, name, afterName, beforeValue, token, quoted(escaped: Bool), afterItem
    }

    let limits: HTTPLimits
    private var state = State.size(digits: 0)
    private var size = 0
    /// Bytes between each chunk size and its line's CR so far, all chunks of the request together.
    private var extensionBytes = 0
    private var trailerBytes: [UInt8] = []

    init(limits: HTTPLimits) { self.limits = limits }

    /// Consumes what it can from `buffer`, appending data to `request.body`; true once the last chunk and
    /// trailers are complete.
    mutating func decode(_ buffer: ReadBuffer, into request: inout HTTPRequest) throws(HTTPParseError) -> Bool {
        let bytes = buffer.readable
        var i = 0
        defer { buffer.consume(i) }
        while i < bytes.count {
            let byte = bytes[i]
            switch state {
            case .size(let digits):
                if let value = HTTPGrammar.hexValue(byte) {
                    guard digits < 15 else { throw HTTPParseError(.invalidChunk) }
                    size = size << 4 | Int(value)
                    state = .size(digits: digits + 1)
                } else {
                    guard digits > 0 else { throw HTTPParseError(.invalidChunk) }
                    guard request.body.count + size <= limits.maxBodySize else { throw HTTPParseError(.bodyTooLarge) }
                    try afterSize(byte)
                }
                i += 1
            case .sizeWhitespace:
                try countExtensionByte()
                if byte == 0x3B {
                    state = .extensions(.beforeName)
                } else if byte != HTTPGrammar.space && byte != HTTPGrammar.tab {
                    throw HTTPParseError(.invalidChunk)
                }
                i += 1
            case .extensions(let phase):
                if byte != HTTPGrammar.cr { try countExtensionByte() }
                state = try Self.extensionStep(phase, byte)
                i += 1
            case .sizeLF:
                guard byte == HTTPGrammar.lf else { throw HTTPParseError(.invalidChunk) }
                i += 1
                if size == 0 {
                    state = .trailers
                } else {
                    state = .data(remaining: size)
                }
            case .data(let remaining):
                let take = min(remaining, bytes.count - i)
                request.body.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[i..<(i + take)]))
                i += take
                state = take == remaining ? .dataCR : .data(remaining: remaining - take)
            case .dataCR:
                guard byte == HTTPGrammar.cr else { throw HTTPParseError(.invalidChunk) }
                state = .dataLF
                i += 1
            case .dataLF:
                guard byte == HTTPGrammar.lf else { throw HTTPParseError(.invalidChunk) }
                state = .size(digits: 0)
                size = 0
                i += 1
            case .trailers:
                trailerBytes.append(byte)
                i += 1
                guard trailerBytes.count <= limits.maxHeaderSectionSize else {
                    throw HTTPParseError(.headerSectionTooLarge)
                }
                if byte == HTTPGrammar.lf, try trailersComplete(into: &request) { return true }
            }
        }
        return false
    }

    /// After `chunk-size`: BWS then `;` extensions, or CRLF; whitespace before CRLF is refused.
    private mutating func afterSize(_ byte: UInt8) throws(HTTPParseError) {
        switch byte {
        case HTTPGrammar.cr: state = .sizeLF
        case 0x3B: state = .extensions(.beforeName)
        case HTTPGrammar.space, HTTPGrammar.tab: state = .sizeWhitespace
        default: throw HTTPParseError(.invalidChunk)
        }
        if byte != HTTPGrammar.cr { try countExtensionByte() }
    }

    /// One more byte of chunk extensions; past `maxChunkExtensionBytes` in the request, 400 and the connection
    /// closes (RFC 9112 §7.1.1).
    private mutating func countExtensionByte() throws(HTTPParseError) {
        extensionBytes += 1
        guard extensionBytes <= limits.maxChunkExtensionBytes else { throw HTTPParseError(.chunkExtensionsTooLarge) }
    }

    /// One byte of the chunk-extension grammar; CR ends the chunk line.
    private static func extensionStep(_ phase: ExtensionPhase, _ byte: UInt8) throws(HTTPParseError) -> State {
        let blank = byte == HTTPGrammar.space || byte == HTTPGrammar.tab
        switch phase {
        case .beforeName:
            if blank { return .extensions(.beforeName) }
            if HTTPGrammar.isTokenChar(byte) { return .extensions(.name) }
        case .name, .token:
            if HTTPGrammar.isTokenChar(byte) { return .extensions(phase) }
            if byte == 0x3D, case .name = phase { return .extensions(.beforeValue) }
            if byte == 0x3B { return .extensions(.beforeName) }
            if blank, case .name = phase { return .extensions(.afterName) }
            if blank { return .extensions(.afterItem) }
            if byte == HTTPGrammar.cr { return .sizeLF }
        case .afterName:
            if blank { return .extensions(.afterName) }
            if byte == 0x3D { return .extensions(.beforeValue) }
            if byte == 0x3B { return .extensions(.beforeName) }
            if byte == HTTPGrammar.cr { return .sizeLF }
        case .beforeValue:
            if blank { return .extensions(.beforeValue) }
            if byte == 0x22 { return .extensions(.quoted(escaped: false)) }
            if HTTPGrammar.isTokenChar(byte) { return .extensions(.token) }
        case .quoted(let escaped):
            guard HTTPGrammar.isFieldValueChar(byte) else { break }
            if escaped { return .extensions(.quoted(escaped: false)) }
            if byte == 0x5C { return .extensions(.quoted(escaped: true)) }
            return .extensions(byte == 0x22 ? .afterItem : .quoted(escaped: false))
        case .afterItem:
            if blank { return .extensions(.afterItem) }
            if byte == 0x3B { return .extensions(.beforeName) }
            if byte == HTTPGrammar.cr { return .sizeLF }
        }
        throw HTTPParseError(.invalidChunk)
    }

    /// Checks the line just ended by LF; on the empty line, parses the trailer section.
    private mutating func trailersComplete(into request: inout HTTPRequest) throws(HTTPParseError) -> Bool {
        let count = trailerBytes.count
        guard count >= 2, trailerBytes[count - 2] == HTTPGrammar.cr else { throw HTTPParseError(.bareLineFeed) }
        guard count == 2 || (count >= 4 && trailerBytes[count - 4] == HTTPGrammar.cr
                             && trailerBytes[count - 3] == HTTPGrammar.lf) else { return false }
        let maxCount = limits.maxHeaderCount
        let parsed = trailerBytes.withUnsafeBytes { all -> Result<[HTTPHeaders.Field], HTTPParseError> in
            var fields: [HTTPHeaders.Field] = []
            var start = 0
            while start < count - 2 {
                var end = start
                while all[end] != HTTPGrammar.lf { end += 1 }
                guard fields.count < maxCount else { return .failure(HTTPParseError(.tooManyHeaders)) }
                let line = UnsafeRawBufferPointer(rebasing: all[start..<(end - 1)])
                do throws(HTTPParseError) {
                    let (name, value) = try HTTPHeadParser.splitField(line)
                    fields.append((name: HTTPGrammar.string(name), value: HTTPGrammar.string(value)))
                } catch {
                    return .failure(error)
                }
                start = end + 1
            }
            return .success(fields)
        }
        request.trailers = HTTPHeaders(try parsed.get())
        return true
    }
}
