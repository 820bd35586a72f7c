import HTTPCore

extension Application {
    /// Handles one request: builds the `Request`, runs the global middleware, the router and the route,
    /// and logs one access line at `info`.
    /// Never throws: errors become responses, the same way in tests and behind the server.
    package func respond(to request: HTTPRequest, connection: ConnectionInfo) async -> HTTPResponse {
        let start = ContinuousClock.now
        let id = requestIDs.next()
        let frozen: Frozen
        do {
            frozen = try self.frozen()
        } catch {
            logger.critical("Cannot serve: \(String(describing: error))")
            var response = ErrorRenderer.json(status: .internalServerError, reason: "Something went wrong.")
            response.headers.add(name: "X-Request-Id", value: id)
            return response
        }
        let req = Request(head: request, connection: connection, context: frozen.context, id: id)
        var http: Response
        do {
            http = try await frozen.responder.respond(to: req)
        } catch {
            http = ErrorRenderer.response(for: error, request: req)
        }
        http.headers.replaceOrAdd(name: "X-Request-Id", value: id)
        let elapsed = (ContinuousClock.now - start).components
        frozen.context.metrics?.record(routeIndex: req.route?.index, servedFile: req.servedFile, method: request.method,
                                       status: http.status.code,
                                       nanoseconds: Int(elapsed.seconds) * 1_000_000_000 + Int(elapsed.attoseconds / 1_000_000_000))
        let milliseconds = Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds) / 1e15
        // Method and path only: the query may carry codes or state. The client's address is the peer's, or the
        // nearest X-Forwarded-For hop with TRUST_PROXY, escaped like every request value.
        if req.logLevel <= .info {
            let client = LogEscaping.escape(req.remoteAddress)
            req.logger.info("\(ErrorRenderer.logged(req)) \(http.status.code) \(Self.format(milliseconds)) ms from \(client)")
        }
        return http
    }

    /// Milliseconds with one decimal, for the access log.
    static func format(_ milliseconds: Double) -> String {
        String(Double(Int(milliseconds * 10)) / 10)
    }
}
