/// An error reported by PostgreSQL or by libpq, with the same reasons as `SQLiteError` where they mean the same.
///
/// Carries the SQLSTATE (https://www.postgresql.org/docs/current/errcodes-appendix.html), the server's or libpq's
/// message and the SQL of the statement that failed. Bound values and the connection's password are never
/// recorded, so the error is safe to log.
package struct PostgresError: Error, Equatable, CustomStringConvertible {
    /// The failures callers handle differently from the rest.
    package enum Reason: Equatable, Sendable {
        /// A `UNIQUE` or primary-key constraint was violated (SQLSTATE 23505).
        case uniqueConstraint
        /// A foreign-key constraint was violated (23503).
        case foreignKeyConstraint
        /// The server cannot be reached, closed the connection, or is starting up or shutting down (class 08,
        /// 57P01-57P03), or ended a statement that waited too long (57014 `statement_timeout`, 55P03
        /// `lock_timeout`): try again later.
        case unavailable
        /// The transaction was rolled back to resolve a conflict (40001 serialization, 40P01 deadlock): retry it.
        case conflict
        /// The connection URL has an option value libpq refuses: no retry can mend it.
        case misconfigured
        /// Anything else; see `sqlState`.
        case other
    }

    /// The five-character SQLSTATE, or an empty string for errors libpq raises before the server answers.
    package var sqlState: String
    /// PostgreSQL's primary message, or libpq's.
    package var message: String
    /// The SQL of the statement that failed, when there was one.
    package var sql: String?
    /// In a write of several statements, the position of the one that failed.
    package var statementIndex: Int?
    /// Whether the connection is unusable after this error (the server went away, or the protocol broke).
    package var connectionLost: Bool
    /// Whether libpq refused an option of the URL before it tried a server (`configuration(_:)`).
    private var misconfigured = false

    package init(sqlState: String, message: String, sql: String? = nil, connectionLost: Bool = false) {
        self.sqlState = sqlState
        self.message = message
        self.sql = sql
        self.connectionLost = connectionLost
    }

    /// An error of the connection itself (no SQLSTATE): the server is unreachable or the connection broke.
    package static func connection(_ message: String) -> PostgresError {
        PostgresError(sqlState: "", message: message, connectionLost: true)
    }

    /// A `DATABASE_URL` whose option values libpq refuses before it tries any server (`sslmode=bogus`): no
    /// retry can mend it, so start-up reports it at once instead of waiting for a server.
    package static func configuration(_ message: String) -> PostgresError {
        var error = PostgresError(sqlState: "", message: message)
        error.misconfigured = true
        return error
    }

    /// The category of this error.
    package var reason: Reason {
        if misconfigured { return .misconfigured }
        if connectionLost || endsConnection { return .unavailable }
        switch sqlState {
        case "23505": return .uniqueConstraint
        case "23503": return .foreignKeyConstraint
        case "40001", "40P01": return .conflict
        case "57P01", "57P02", "57P03", "57014", "55P03": return .unavailable
        default: return sqlState.hasPrefix("08") ? .unavailable : .other
        }
    }

    /// SQLSTATEs that say this connection reached the wrong kind of server: a read-only one (25006: a standby, or
    /// a primary demoted by a failover), or a pooler in transaction mode that moved the session's prepared
    /// statements to another server connection (42P05 already exists, 26000 does not exist, 08P01 a bind that
    /// does not fit). The connection is dropped, never reused, and the caller answers 503.
    static let connectionEndingStates: Set<String> = ["25006", "42P05", "26000", "08P01"]

    /// Whether the connection that raised this error must be dropped (`connectionEndingStates`), or its prepared
    /// statement no longer fits the table it reads (SQLSTATE 0A000 "cached plan must not change result type", after
    /// a column's type changed: a rolling upgrade's migration, a DBA's `ALTER`): a new connection prepares it again.
    /// Found by a review: the statement failed on that connection, a 500, until the process restarted.
    package var endsConnection: Bool {
        Self.connectionEndingStates.contains(sqlState)
            || sqlState == "0A000" && message.contains("cached plan must not change result type")
    }

    /// Whether the server reached takes no writes: SQLSTATE 25006, or libpq refusing every host of a URL with
    /// `target_session_attrs=read-write` ("session is read-only", "server is in hot standby mode").
    package var isReadOnlyServer: Bool {
        sqlState == "25006" || sqlState.isEmpty && (message.contains("read-only") || message.contains("hot standby"))
    }

    /// Whether a statement prepared on this connection was not found on the server (26000), or its name was already
    /// taken there (42P05): the session the statements were prepared in is not the one that ran them, which only a
    /// pooler in transaction mode does (`PostgresPool.preparedStatements`).
    package var isPreparedStatementLost: Bool { sqlState == "26000" || sqlState == "42P05" }

    /// What an operator should do about this error, when the server can tell.
    package var hint: String? {
        switch sqlState {
        case "25006":
            "the database is read-only (a standby?): list the primary in DATABASE_URL, or several hosts with "
                + "target_session_attrs=read-write"
        case "42P05", "26000", "08P01":
            "prepared statements do not survive this connection (a pooler in transaction mode, such as PgBouncer?): "
                + "set DATABASE_PREPARED_STATEMENTS=off"
        default: nil
        }
    }

    package var description: String {
        let code = sqlState.isEmpty ? "" : " (SQLSTATE \(sqlState))"
        let advice = hint.map { "; \($0)" } ?? ""
        guard let sql else { return "PostgreSQL error\(code): \(message)\(advice)" }
        return "PostgreSQL error\(code): \(message) in \(SQL.oneLine(sql))\(advice)"
    }
}
