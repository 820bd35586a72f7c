/// Parses a complete header section (request line and fields, ending before the empty line) per RFC 9112 §2–§7.
enum HTTPHeadParser {
    /// - Parameter bytes: from the first byte of the request line up to and including the CRLF of the last field line.
    static func parse(_ bytes: UnsafeRawBufferPointer, limits: HTTPLimits) throws(HTTPParseError) -> HTTPRequestHead {
        guard let firstLF = bytes.firstIndex(of: HTTPGrammar.lf) else { throw HTTPParseError(.invalidRequestLine) }
        let line = UnsafeRawBufferPointer(rebasing: bytes[0..<(firstLF - 1)])
        let (method, target, version) = try parseRequestLine(line)
        var head = HTTPRequestHead(request: HTTPRequest(method: method, target: target, version: version),
                                   framing: .none, keepAlive: version.minor >= 1, expectsContinue: false)
        var fields = FieldSummary()
        var headers: [HTTPHeaders.Field] = []
        headers.reserveCapacity(8)
        var start = firstLF + 1
        while start < bytes.count {
            var end = start
            while bytes[end] != HTTPGrammar.lf { end += 1 }
            let fieldLine = UnsafeRawBufferPointer(rebasing: bytes[start..<(end - 1)])
            start = end + 1
            guard headers.count < limits.maxHeaderCount else { throw HTTPParseError(.tooManyHeaders) }
            let (name, value) = try splitField(fieldLine)
            try fields.note(name: name, value: value)
            headers.append((name: HTTPGrammar.string(name), value: HTTPGrammar.string(value)))
        }
        head.request.headers = HTTPHeaders(headers)
        try fields.apply(to: &head, limits: limits)
        return head
    }

    /// `request-line = method SP request-target SP HTTP-version` (RFC 9112 §3).
    static func parseRequestLine(_ line: UnsafeRawBufferPointer) throws(HTTPParseError) -> (HTTPMethod, String, HTTPVersion) {
        var i = 0
        while i < line.count, HTTPGrammar.isTokenChar(line[i]) { i += 1 }
        guard i > 0 else { throw HTTPParseError(.invalidMethod) }
        guard i < line.count, line[i] == HTTPGrammar.space else {
            throw HTTPParseError(i < line.count && line[i] != HTTPGrammar.tab ? .invalidMethod : .invalidRequestLine)
        }
        let method = makeMethod(UnsafeRawBufferPointer(rebasing: line[0..<i]))
        i += 1
        let targetStart = i
        while i < line.count, HTTPGrammar.isTargetChar(line[i]) { i += 1 }
        guard i > targetStart else { throw HTTPParseError(.invalidTarget) }
        guard i < line.count, line[i] == HTTPGrammar.space else {
            throw HTTPParseError(i < line.count && line[i] != HTTPGrammar.tab ? .invalidTarget : .invalidRequestLine)
        }
        let targetBytes = UnsafeRawBufferPointer(rebasing: line[targetStart..<i])
        try validateTarget(targetBytes, method: method)
        i += 1
        let version = try parseVersion(UnsafeRawBufferPointer(rebasing: line[i...]))
        return (method, HTTPGrammar.string(targetBytes), version)
    }

    /// `HTTP-version = "HTTP" "/" DIGIT "." DIGIT` (RFC 9112 §2.3); a major other than 1 is 505.
    static func parseVersion(_ bytes: UnsafeRawBufferPointer) throws(HTTPParseError) -> HTTPVersion {
        guard bytes.count == 8, bytes[0] == 0x48, bytes[1] == 0x54, bytes[2] == 0x54, bytes[3] == 0x50,
              bytes[4] == 0x2F, bytes[6] == 0x2E,
              (0x30...0x39).contains(bytes[5]), (0x30...0x39).contains(bytes[7]) else {
            throw HTTPParseError(.invalidVersion)
        }
        let major = Int(bytes[5] - 0x30)
        let minor = Int(bytes[7] - 0x30)
        guard major == 1 else {
            throw HTTPParseError(major == 0 ? .invalidVersion : .unsupportedVersion)
        }
        return HTTPVersion(major: 1, minor: minor)
    }

    /// Request-target forms (RFC 9112 §3.2): origin, absolute, authority (CONNECT only), asterisk (OPTIONS only).
    /// An absolute form's authority must be what a `Host` field may hold, with a host: userinfo
    /// (`http://u:p@host/`) is refused as RFC 9110 §4.2.4 forbids it in a target, an empty host (`http:///`,
    /// `http://:80/`) as §4.2.1 calls such a URI invalid, and a malformed port or IP literal as in `Host` (found by
    /// an audit: those passed here and were 400 in `Host`).
    static func validateTarget(_ target: UnsafeRawBufferPointer, method: HTTPMethod) throws(HTTPParseError) {
        if target[0] == 0x2F { return }
        if target.count == 1, target[0] == 0x2A {
            guard method == .OPTIONS else { throw HTTPParseError(.invalidTarget) }
            return
        }
        if method == .CONNECT { return }
        let text = HTTPGrammar.string(target).lowercased()
        let scheme = text.hasPrefix("http://") ? 7 : text.hasPrefix("https://") ? 8 : 0
        guard scheme > 0 else { throw HTTPParseError(.invalidTarget) }
        let authority = text.utf8.dropFirst(scheme).prefix { $0 != 0x2F && $0 != 0x3F && $0 != 0x23 }
        guard !authority.isEmpty, !authority.contains(0x40),
              Array(authority).withUnsafeBytes({ isValidHost($0) }) else { throw HTTPParseError(.invalidTarget) }
    }

    static func makeMethod(_ bytes: UnsafeRawBufferPointer) -> HTTPMethod {
        switch bytes.count {
        case 3 where bytes[0] == 0x47 && bytes[1] == 0x45 && bytes[2] == 0x54: return .GET
        case 3 where bytes[0] == 0x50 && bytes[1] == 0x55 && bytes[2] == 0x54: return .PUT
        case 4 where bytes[0] == 0x50 && bytes[1] == 0x4F && bytes[2] == 0x53 && bytes[3] == 0x54: return .POST
        case 4 where bytes[0] == 0x48 && bytes[1] == 0x45 && bytes[2] == 0x41 && bytes[3] == 0x44: return .HEAD
        default: return HTTPMethod(rawValue: HTTPGrammar.string(bytes))
        }
    }

    /// `field-line = field-name ":" OWS field-value OWS` (RFC 9112 §5); no whitespace before the colon,
    /// no obs-fold (§5.2), no CTL in the value.
    static func splitField(_ line: UnsafeRawBufferPointer) throws(HTTPParseError)
        -> (UnsafeRawBufferPointer, UnsafeRawBufferPointer) {
        guard line.count > 0 else { throw HTTPParseError(.invalidHeaderName) }
        if line[0] == HTTPGrammar.space || line[0] == HTTPGrammar.tab { throw HTTPParseError(.obsoleteLineFolding) }
        var i = 0
        while i < line.count, HTTPGrammar.isTokenChar(line[i]) { i += 1 }
        guard i < line.count else { throw HTTPParseError(.invalidHeaderName) }
        guard line[i] == HTTPGrammar.colon else {
            if line[i] == HTTPGrammar.space || line[i] == HTTPGrammar.tab {
                // `Name : value` is whitespace before the colon; `bad header` (no colon next) is a name with a space.
                var k = i
                while k < line.count, line[k] == HTTPGrammar.space || line[k] == HTTPGrammar.tab { k += 1 }
                throw HTTPParseError(k < line.count && line[k] == HTTPGrammar.colon ? .whitespaceBeforeColon
                                     : .invalidHeaderName)
            }
            if line[i] == HTTPGrammar.cr { throw HTTPParseError(.bareCarriageReturn) }
            throw HTTPParseError(.invalidHeaderName)
        }
        guard i > 0 else { throw HTTPParseError(.invalidHeaderName) }
        let name = UnsafeRawBufferPointer(rebasing: line[0..<i])
        var j = i + 1
        while j < line.count {
            let byte = line[j]
            guard HTTPGrammar.isFieldValueChar(byte) else {
                throw HTTPParseError(byte == HTTPGrammar.cr ? .bareCarriageReturn : .invalidHeaderValue)
            }
            j += 1
        }
        let value = HTTPGrammar.trimmed(UnsafeRawBufferPointer(rebasing: line[(i + 1)...]))
        return (name, value)
    }
}
