import Logging
@testable import HTTPCore

/// Starts a server on 127.0.0.1:0 (or another host), runs `body`, then shuts it down.
func withServer<T>(host: String = "127.0.0.1", limits: HTTPLimits = .init(), loops: Int = 1,
                   tls: TLSServerConfiguration? = nil,
                   shutdownGracePeriod: Duration = HTTPServerConfiguration.defaultShutdownGracePeriod,
                   drainIdleTimeout: Duration = HTTPServerConfiguration.defaultDrainIdleTimeout,
                   responder: any HTTPResponder = EchoResponder(), errorHeaders: HTTPHeaders = [:],
                   _ body: (HTTPServer, Int) async throws -> T) async throws -> T {
    var logger = Logger(label: "test")
    logger.logLevel = .warning
    var configuration = HTTPServerConfiguration(hostname: host, port: 0, loopCount: loops, limits: limits, tls: tls,
                                                shutdownGracePeriod: shutdownGracePeriod,
                                                drainIdleTimeout: drainIdleTimeout)
    configuration.errorHeaders = errorHeaders
    let server = HTTPServer(configuration: configuration, responder: responder, logger: logger)
    try server.start()
    do {
        let result = try await body(server, server.localPort)
        await server.shutdown()
        return result
    } catch {
        await server.shutdown()
        throw error
    }
}

/// Answers with method, target, body size and body, so tests can see what the server parsed.
struct EchoResponder: HTTPResponder {
    func respond(to request: HTTPRequest, connection: ConnectionInfo) async -> HTTPResponse {
        switch request.path {
        case "/plaintext":
            return HTTPResponse(headers: ["Content-Type": "text/plain"], string: "Hello, World!")
        case "/secure":
            return HTTPResponse(string: connection.isSecure ? "secure" : "plain")
        case "/slow":
            try? await Task.sleep(for: .milliseconds(300))
            return HTTPResponse(string: "slow done")
        case "/stream":
            return HTTPResponse(body: .stream { writer in
                for i in 0..<3 { try await writer.write(Array("part\(i);".utf8)) }
            })
        case "/big":
            return HTTPResponse(bytes: [UInt8](repeating: 0x61, count: 4 * 1024 * 1024))
        case "/nocontent":
            return HTTPResponse(status: .noContent)
        default:
            var text = "\(request.method.rawValue) \(request.target) \(request.body.count)\n"
            text += String(decoding: request.body, as: UTF8.self)
            for field in request.trailers { text += "\ntrailer \(field.name)=\(field.value)" }
            return HTTPResponse(headers: ["Content-Type": "text/plain"], string: text)
        }
    }
}
