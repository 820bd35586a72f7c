extension HTTPClient {
    /// The request line and header section (RFC 9112 §3, §5). The client owns `Host`, `Content-Length`
    /// and `Connection` (none is sent: HTTP/1.1 connections persist by default, RFC 9112 §9.3); names and values
    /// are checked so no field can smuggle a line break.
    static func serializeHead(_ request: HTTPClientRequest, url: HTTPClientURL, userAgent: String) throws -> [UInt8] {
        let method = request.method.rawValue
        guard !method.isEmpty, method.utf8.allSatisfy(HTTPGrammar.isTokenChar) else {
            throw HTTPClientError(.invalidRequest, "invalid method")
        }
        var head = "\(method) \(url.target) HTTP/1.1\r\nHost: \(url.hostHeader)\r\n"
        let owned = ["Host", "Content-Length", "Connection", "Transfer-Encoding"]
        for field in request.headers where !owned.contains(where: { HTTPHeaders.equalsIgnoringCase($0, field.name) }) {
            guard !field.name.isEmpty, field.name.utf8.allSatisfy(HTTPGrammar.isTokenChar),
                  field.value.utf8.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
                throw HTTPClientError(.invalidRequest, "invalid header field \(field.name)")
            }
            head += "\(field.name): \(field.value)\r\n"
        }
        if !request.headers.contains("User-Agent") {
            head += "User-Agent: \(userAgent)\r\n"
        }
        // A request without content sends no Content-Length unless its method expects content (RFC 9110 §8.6).
        if !request.body.isEmpty || [.POST, .PUT, .PATCH].contains(request.method) {
            head += "Content-Length: \(request.body.count)\r\n"
        }
        head += "\r\n"
        return Array(head.utf8)
    }
}
