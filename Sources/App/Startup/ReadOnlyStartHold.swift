import HTTPCore
import IOCore
import Logging
import Storage
import Synchronization

/// `siwa serve` whose `DATABASE_URL` reaches only servers that take no writes (a standby, or only standbys with
/// `target_session_attrs=read-write`), or no server yet: the process serves `GET /health` (200), `GET /ready` (503)
/// and 503 with `Retry-After` on every other route, logs why, and asks again every `retryInterval` until a server
/// takes writes; then it steps aside for the real server. Read-only servers are waited for as long as it takes (see
/// the README's "Failover and poolers"); no server at all for `AppMigrations.postgresStartupTimeout`, then the
/// start fails naming host and port, as it always did, but `/health` answered meanwhile (a liveness probe).
struct ReadOnlyStartHold {
    /// How often the database is asked again.
    static let retryInterval: Duration = .seconds(1)
    let configuration: Configuration
    let logger: Logger

    /// Returns true at once when the database takes writes (or is not PostgreSQL, or refused the connection: the
    /// start then says why), true once it does after a hold, and false when SIGINT or SIGTERM ended the hold.
    /// - Throws: `PostgresError` naming host and port when no server answered within the start's wait.
    func waitForWritable() async throws -> Bool {
        guard let url = configuration.databaseURL else { return true }
        // One loop of its own for the probes and the hold's listener, stopped before the server starts its group:
        // the process default group would keep a thread per CPU idle for the server's whole life.
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        func probe() async -> DatabaseWritability {
            await DatabaseWritability.probe(url, preparedStatements: configuration.databasePreparedStatements, group: group)
        }
        let started = ContinuousClock.now
        var answer = await probe()
        switch answer {
        case .writable, .refused: return true
        case .readOnly(let reason): logReadOnly(url, reason: reason)
        case .unreachable(let reason):
            logger.warning("""
                PostgreSQL at \(url.server) does not answer (\(reason)): serving /health and waiting up to \
                \(AppMigrations.postgresStartupTimeout) for it
                """)
        }
        // Once a server answered (read-only), the hold waits as long as it takes, whatever comes next.
        var sawAServer = if case .unreachable = answer { false } else { true }
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
        var timedOut: String?
        while !stopped.load(ordering: .relaxed) {
            try? await Task.sleep(for: Self.retryInterval)
            answer = await probe()
            if answer == .writable || answer == .refused { break }
            if case .readOnly(let reason) = answer, !sawAServer {
                sawAServer = true
                logReadOnly(url, reason: reason)
            }
            if case .unreachable(let reason) = answer, !sawAServer,
               ContinuousClock.now - started >= AppMigrations.postgresStartupTimeout {
                timedOut = reason
                break
            }
        }
        await server.shutdown()
        if let reason = timedOut {
            throw PostgresError.connection("DATABASE_URL: PostgreSQL at \(url.server) did not answer within "
                + "\(AppMigrations.postgresStartupTimeout): \(reason)")
        }
        guard !stopped.load(ordering: .relaxed) else { return false }
        logger.notice("PostgreSQL at \(url.server) takes writes: starting")
        return true
    }

    private func logReadOnly(_ url: PostgresURL, reason: String) {
        logger.warning("""
            PostgreSQL at \(url.server) is read-only (\(reason)): serving /health and waiting for a server \
            that takes writes; list the primary in DATABASE_URL, or several hosts with target_session_attrs=read-write
            """)
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
