extension HTTPClient {
    /// The fields the client writes itself; one of these given in a request is dropped.
    private static let ownedFields = ["Host", "Content-Length", "Connection", "Transfer-Encoding"]

    /// The request line and header section (RFC 9112 §3, §5). The client owns `Host`, `Content-Length`
    /// and `Connection` (none is sent: HTTP/1.1 connections persist by default, RFC 9112 §9.3); names and values
    /// are checked so no field can smuggle a line break.
    ///
    /// - Parameter bodyCapacity: room to reserve after the head, so that the body can be appended without a copy.
    static func serializeHead(_ request: HTTPClientRequest, url: HTTPClientURL, userAgent: String,
                              bodyCapacity: Int = 0) throws -> [UInt8] {
        let method = request.method.rawValue
        guard !method.isEmpty, method.utf8.allSatisfy(HTTPGrammar.isTokenChar) else {
            throw HTTPClientError(.invalidRequest, "invalid method")
        }
        var head: [UInt8] = []
        head.reserveCapacity(256 + bodyCapacity + request.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 })
        head.append(contentsOf: method.utf8)
        head.append(UInt8(ascii: " "))
        head.append(contentsOf: url.target.utf8)
        head.append(contentsOf: " HTTP/1.1\r\n".utf8)
        appendField("Host", url.hostHeader, to: &head)
        for field in request.headers where !ownedFields.contains(where: { HTTPHeaders.equalsIgnoringCase($0, field.name) }) {
            guard !field.name.isEmpty, field.name.utf8.allSatisfy(HTTPGrammar.isTokenChar),
                  field.value.utf8.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
                throw HTTPClientError(.invalidRequest, "invalid header field \(field.name)")
            }
            appendField(field.name, field.value, to: &head)
        }
        if !request.headers.contains("User-Agent") {
            appendField("User-Agent", userAgent, to: &head)
        }
        // A request without content sends no Content-Length unless its method expects content (RFC 9110 §8.6).
        if !request.body.isEmpty || [.POST, .PUT, .PATCH].contains(request.method) {
            appendField("Content-Length", String(request.body.count), to: &head)
        }
        head.append(contentsOf: "\r\n".utf8)
        return head
    }

    private static func appendField(_ name: String, _ value: String, to head: inout [UInt8]) {
        head.append(contentsOf: name.utf8)
        head.append(contentsOf: ": ".utf8)
        head.append(contentsOf: value.utf8)
        head.append(contentsOf: "\r\n".utf8)
    }
}
