import Logging
import Storage
import Web

/// Answers 503 with `Retry-After` when the database fails because of its state rather than the request: SQLite
/// locked by another process past the busy timeout, disk full or file size limit reached, read-only, I/O error;
/// PostgreSQL unreachable, restarting or shutting down (the pool reconnects by itself once it answers again),
/// read-only (a standby), or behind a pooler that drops prepared statements: the log names the setting to change.
///
/// The log line names the cause and the engine's code; neither error type carries bound values or the
/// connection's password, so no token, hash or password reaches the log. Other database errors go on to
/// `ErrorMiddleware` as a 500.
struct DatabaseUnavailableMiddleware: Middleware {
    /// What `Retry-After` tells the client: long enough for a lock holder or an operator to act.
    static let retryAfterSeconds = 5
    /// What the client sees; the cause stays in the log.
    static let clientReason = "The database is temporarily unavailable; try again later."

    let busyTimeoutMilliseconds: Int

    func respond(to request: Request, chainingTo next: any Responder) async throws -> Response {
        do {
            return try await next.respond(to: request)
        } catch let error as SQLiteError {
            guard let cause = Self.cause(of: error, busyTimeoutMilliseconds: busyTimeoutMilliseconds) else { throw error }
            request.logger.error("database unavailable: \(cause)", metadata: [
                "sqlite_code": "\(error.extendedCode)", "sqlite_message": "\(error.message)",
            ])
            throw Abort(.serviceUnavailable, reason: Self.clientReason,
                        headers: ["Retry-After": "\(Self.retryAfterSeconds)"])
        } catch let error as PostgresError where error.reason == .unavailable {
            let hint = error.hint.map { " (\($0))" } ?? ""
            request.logger.error("database unavailable: PostgreSQL: \(error.message)\(hint)", metadata: [
                "sqlstate": "\(error.sqlState)",
            ])
            throw Abort(.serviceUnavailable, reason: Self.clientReason,
                        headers: ["Retry-After": "\(Self.retryAfterSeconds)"])
        }
    }

    /// The cause for the log line, or nil when `error` is not about the database's availability.
    static func cause(of error: SQLiteError, busyTimeoutMilliseconds: Int) -> String? {
        switch error.reason {
        case .busy: "locked by another connection for longer than the busy timeout (\(busyTimeoutMilliseconds) ms)"
        case .full: "disk full or file size limit reached (SQLITE_FULL)"
        case .readOnly: "the database file cannot be written (SQLITE_READONLY)"
        case .ioError where error.isWriteFailure:
            "a write failed: disk full, file size limit (ulimit -f) or device error (SQLITE_IOERR_WRITE)"
        case .ioError: "the operating system failed a file operation (SQLITE_IOERR or SQLITE_CANTOPEN)"
        case .uniqueConstraint, .foreignKeyConstraint, .other: nil
        }
    }
}
