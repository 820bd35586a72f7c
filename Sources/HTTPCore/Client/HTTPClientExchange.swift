/// One request/response exchange on a fresh connection. Blocking: run it on a dedicated queue.
struct HTTPClientExchange: Sendable {
    let url: HTTPClientURL
    let method: HTTPMethod
    let head: [UInt8]
    let body: [UInt8]
    let configuration: HTTPClient.Configuration
    let tls: HTTPClientTLS

    func run() throws -> HTTPClientResponse {
        let connectDeadline = ContinuousClock.now.advanced(by: configuration.connectTimeout)
        let socket = try HTTPClientSocket.connect(host: url.host, port: url.port, loopbackOnly: url.scheme == .http,
                                                  deadline: connectDeadline)
        let transport: any HTTPClientTransport
        switch url.scheme {
        case .http:
            transport = socket
        case .https:
            transport = try HTTPClientTLSTransport(socket: socket, host: url.host, isIPAddress: url.isIPLiteral,
                                                   tls: tls, deadline: connectDeadline)
        }
        let readDeadline = ContinuousClock.now.advanced(by: configuration.readTimeout)
        try transport.write(body.isEmpty ? head : head + body, until: readDeadline)
        var reader = HTTPClientResponseReader(transport: transport, deadline: readDeadline,
                                              configuration: configuration)
        return try reader.readResponse(method: method)
    }
}
