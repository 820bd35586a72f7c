import HTTPCore

extension Application {
    /// Handles one request: builds the `Request`, runs the global middleware, the router and the route.
    /// Never throws: errors become responses, the same way in tests and behind the server.
    public func respond(to request: HTTPRequest, connection: ConnectionInfo) async -> HTTPResponse {
        let id = Self.makeRequestID()
        let frozen: Frozen
        do {
            frozen = try self.frozen()
        } catch {
            logger.critical("Cannot serve: \(String(describing: error))")
            var response = ErrorRenderer.json(status: .internalServerError, reason: "Something went wrong.").httpResponse
            response.headers.add(name: "X-Request-Id", value: id)
            return response
        }
        let req = Request(head: request, connection: connection, context: frozen.context, id: id)
        let response: Response
        do {
            response = try await frozen.responder.respond(to: req)
        } catch {
            response = ErrorRenderer.response(for: error, request: req)
        }
        var http = response.httpResponse
        http.headers.replaceOrAdd(name: "X-Request-Id", value: id)
        return http
    }

    /// 16 hex digits from the system generator.
    static func makeRequestID() -> String {
        let value = UInt64.random(in: .min ... .max)
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
