import Logging
import Storage
import Web

/// Answers 503 with `Retry-After` when the database fails because of its state rather than the request: SQLite
/// locked by another process past the busy timeout, disk full or file size limit reached, read-only, I/O error;
/// PostgreSQL unreachable, restarting or shutting down (the pool reconnects by itself once it answers again),
/// read-only (a standby), or behind a pooler that drops prepared statements: the log names the setting to change.
///
/// Storage says which failures those are (`DatabaseFailureKind.unavailable`); this layer only turns them into the
/// answer. The log line names the cause and the engine's code; no failure carries bound values or the connection's
/// password, so no token, hash or password reaches the log. Other database errors go on to `ErrorMiddleware` as a
/// 500.
struct DatabaseUnavailableMiddleware: Middleware {
    /// What `Retry-After` tells the client: long enough for a lock holder or an operator to act.
    static let retryAfterSeconds = 5
    /// What the client sees; the cause stays in the log.
    static let clientReason = "The database is temporarily unavailable; try again later."

    func respond(to request: Request, chainingTo next: any Responder) async throws -> Response {
        do {
            return try await next.respond(to: request)
        } catch let failure as any DatabaseFailure where failure.failureKind == .unavailable {
            request.logger.error("database unavailable: \(failure.logCause)",
                                 metadata: failure.logMetadata.mapValues { .string($0) })
            throw Abort(.serviceUnavailable, reason: Self.clientReason,
                        headers: ["Retry-After": "\(Self.retryAfterSeconds)"])
        }
    }
}
