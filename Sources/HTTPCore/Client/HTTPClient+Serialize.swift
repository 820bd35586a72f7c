extension HTTPClient {
    /// The request line and header section (RFC 9112 §3, §5). The client owns `Host`, `Content-Length`
    /// and `Connection` (none is sent: HTTP/1.1 connections persist by default, RFC 9112 §9.3); names and values
    /// are checked so no field can smuggle a line break.
    ///
    /// - Parameter bodyCapacity: room to reserve after the head, so that the body can be appended without a copy.
    static func serializeHead(_ request: HTTPClientRequest, url: HTTPClientURL, userAgent: String,
                              bodyCapacity: Int = 0) throws -> [UInt8] {
        var method = request.method.rawValue
        guard method.withUTF8({ !$0.isEmpty && $0.allSatisfy(HTTPGrammar.isTokenChar) }) else {
            throw HTTPClientError(.invalidRequest, "invalid method")
        }
        var capacity = 256 + bodyCapacity
        for field in request.headers { capacity += field.name.utf8.count + field.value.utf8.count + 4 }
        var head: [UInt8] = []
        head.reserveCapacity(capacity)
        append(method, to: &head)
        head.append(UInt8(ascii: " "))
        append(url.target, to: &head)
        append(" HTTP/1.1\r\nHost: ", to: &head)
        url.appendHostHeader(to: &head)
        append("\r\n", to: &head)
        var namesUserAgent = false
        for field in request.headers {
            switch FieldRole(field.name) {
            case .ownedByClient: continue
            case .userAgent: namesUserAgent = true
            case .other: break
            }
            guard HeadBytes.appendField(field.name, field.value, to: &head) else {
                throw HTTPClientError(.invalidRequest, "invalid header field \(field.name)")
            }
        }
        if !namesUserAgent, !HeadBytes.appendField("User-Agent", userAgent, to: &head) {
            throw HTTPClientError(.invalidRequest, "invalid header field User-Agent")
        }
        // A request without content sends no Content-Length unless its method expects content (RFC 9110 §8.6).
        if !request.body.isEmpty || request.method.expectsContent {
            append("Content-Length: ", to: &head)
            HeadBytes.appendDecimal(request.body.count, to: &head)
            append("\r\n", to: &head)
        }
        append("\r\n", to: &head)
        return head
    }

    /// What a request's field is to the client: one it writes itself (`Host`, `Content-Length`, `Connection`,
    /// `Transfer-Encoding`; one given is dropped), `User-Agent` (given, it replaces the client's), or any other.
    private enum FieldRole {
        case ownedByClient, userAgent, other

        init(_ name: String) {
            var name = name
            self = name.withUTF8 { bytes in
                let raw = UnsafeRawBufferPointer(bytes)
                switch bytes.count {
                case 4 where HTTPGrammar.equalsLowercase(raw, "host"): return .ownedByClient
                case 10 where HTTPGrammar.equalsLowercase(raw, "connection"): return .ownedByClient
                case 10 where HTTPGrammar.equalsLowercase(raw, "user-agent"): return .userAgent
                case 14 where HTTPGrammar.equalsLowercase(raw, "content-length"): return .ownedByClient
                case 17 where HTTPGrammar.equalsLowercase(raw, "transfer-encoding"): return .ownedByClient
                default: return .other
                }
            }
        }
    }

    static func append(_ text: String, to head: inout [UInt8]) {
        var text = text
        text.withUTF8 { head.append(contentsOf: $0) }
    }

    static func append(_ text: StaticString, to head: inout [UInt8]) {
        head.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}

extension HTTPMethod {
    /// Whether a request with this method is expected to carry content, so that an empty one still sends
    /// `Content-Length: 0` (RFC 9110 §8.6).
    var expectsContent: Bool {
        self == .POST || self == .PUT || self == .PATCH
    }
}
