import HTTPCore
import IOCore
import Logging
import Storage
import Synchronization

/// `siwa serve` whose `DATABASE_URL` reaches only servers that take no writes (a standby, or only standbys with
/// `target_session_attrs=read-write`): the process does not exit. It serves `GET /health` (200), `GET /ready` (503)
/// and 503 with `Retry-After` on every other route, logs that the database is read-only, and asks again every
/// `retryInterval` until a server takes writes; then it steps aside for the real server. See the README's
/// "Failover and poolers".
struct ReadOnlyStartHold {
    /// How often the database is asked again.
    static let retryInterval: Duration = .seconds(1)
    let configuration: Configuration
    let logger: Logger

    /// Returns true at once when the database takes writes (or is not PostgreSQL, or does not answer: start-up's
    /// own wait handles that), true once it does after a hold, and false when SIGINT or SIGTERM ended the hold.
    func waitForWritable() async throws -> Bool {
        guard let url = configuration.databaseURL else { return true }
        // One loop of its own for the probes and the hold's listener, stopped before the server starts its group:
        // the process default group would keep a thread per CPU idle for the server's whole life.
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        func probe() async -> DatabaseWritability {
            await DatabaseWritability.probe(url, preparedStatements: configuration.databasePreparedStatements, group: group)
        }
        guard case .readOnly(let reason) = await probe() else { return true }
        logger.warning("""
            PostgreSQL at \(url.server) is read-only (\(reason)): serving /health and waiting for a server \
            that takes writes; list the primary in DATABASE_URL, or several hosts with target_session_attrs=read-write
            """)
        let server = HTTPServer(configuration: SiwaServer.httpConfiguration(configuration), responder: Responder(),
                                logger: logger, group: group)
        // The handlers come before the line that says the hold listens: a SIGTERM sent once it is read must end
        // the hold cleanly, not kill the process.
        let stopped = Atomic<Bool>(false)
        let signals = ShutdownSignals.install { stopped.store(true, ordering: .relaxed) }
        defer { for source in signals { source.cancel() } }
        try server.start()
        let scheme = configuration.tls == nil ? "http" : "https"
        logger.notice("""
            siwa holding on \(scheme)://\(configuration.hostname):\(server.localPort) (/health only, until the \
            database takes writes)
            """)
        while !stopped.load(ordering: .relaxed) {
            try? await Task.sleep(for: Self.retryInterval)
            if await probe() == .writable { break }
        }
        await server.shutdown()
        guard !stopped.load(ordering: .relaxed) else { return false }
        logger.notice("PostgreSQL at \(url.server) takes writes: starting")
        return true
    }

    /// What the hold answers: alive, not ready, and 503 with the JSON error shape everywhere else.
    struct Responder: HTTPResponder {
        func respond(to request: HTTPRequest, connection: ConnectionInfo) async -> HTTPResponse {
            var headers: HTTPHeaders = ["Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store"]
            if request.path == "/health" { return HTTPResponse(status: .ok, headers: headers, string: #"{"status":"ok"}"#) }
            headers.add(name: "Retry-After", value: "\(DatabaseUnavailableMiddleware.retryAfterSeconds)")
            if request.path == "/ready" {
                return HTTPResponse(status: .serviceUnavailable, headers: headers, string: #"{"status":"unavailable"}"#)
            }
            return HTTPResponse(status: .serviceUnavailable, headers: headers,
                                string: #"{"error":true,"reason":""# + DatabaseUnavailableMiddleware.clientReason + #""}"#)
        }
    }
}
