import CLibPQ
import CLinux
import Glibc
import IOCore

/// One libpq connection (`PGconn`), owned by this object and finished exactly once, used by one task at a time
/// (the pool hands it out). Every operation is asynchronous: libpq in non-blocking mode, its socket watched by the
/// event loop the connection was opened on (`EventLoop.waitOnce`), so a task waiting for PostgreSQL holds no thread.
final class PGConnection: @unchecked Sendable {
    private let handle: OpaquePointer  // PGconn *
    private let loop: EventLoop
    /// Whether statements are prepared once per connection, or sent unnamed (`DATABASE_PREPARED_STATEMENTS`).
    private let preparesStatements: Bool
    /// Set once the connection can no longer be used (the server went away, a wait timed out mid-protocol).
    private(set) var isBroken = false
    /// The statements prepared on this connection (`PQsendPrepare`), by text and parameter types: PostgreSQL parses
    /// and plans each once per connection instead of at every execution.
    private var prepared: [PreparedKey: String] = [:]
    private var nextStatementNumber = 0
    /// Starts every statement name of this connection (`siwa_<prefix>_<n>`): names of two client connections never
    /// collide, so a pooler that hands one's statements to another's server session makes PostgreSQL answer
    /// "does not exist" (26000), never run a different statement of the same name.
    private let statementPrefix = String(UInt32.random(in: 0...UInt32.max), radix: 36)

    private init(takingOwnershipOf handle: OpaquePointer, loop: EventLoop, preparesStatements: Bool) {
        self.handle = handle
        self.loop = loop
        self.preparesStatements = preparesStatements
    }

    deinit {
        let fd = PQsocket(handle)
        if fd >= 0 { loop.forgetOnce(fd) }
        PQfinish(handle)
    }

    /// Opens a connection to `url` without blocking: `PQconnectStartParams`, then `PQconnectPoll` whenever the
    /// socket is ready, as libpq's documentation describes
    /// (https://www.postgresql.org/docs/current/libpq-connect.html). A host name is looked up first, off the loop
    /// (`PostgresHostLookup`), and each of its addresses is tried as `hostaddr`, in order. A URI listing several
    /// hosts is tried host by host, in order, each within the URI's `connect_timeout` or else `timeout`
    /// (`PostgresURL.hostParameters`), so that a host that does not answer cannot hide the others; all of them
    /// before `deadline` (monotonic ns), the end of the call that needs the connection, when there is one, each
    /// host within an even share of the time left to the hosts not yet tried.
    /// - Throws: `PostgresError` (`.unavailable`) naming host and port, never the password.
    static func connect(_ url: PostgresURL, loop: EventLoop, preparedStatements: Bool = true, timeout: Duration,
                        deadline: UInt64? = nil, lookup: PostgresHostLookup = PostgresHostLookup()) async throws
        -> PGConnection
    {
        /// What a host may take: its own time, within its share of what is left of the call's, the hosts still to
        /// try sharing it evenly (so a `connect_timeout` as long as the call cannot let a frozen first host take all
        /// of it); nil when nothing is left.
        func time(_ own: Duration, sharedWith hostsLeft: Int = 1, before end: UInt64? = deadline) -> Duration? {
            guard let end else { return own }
            let now = MonotonicClock.now()
            guard now < end else { return nil }
            let share = MonotonicClock.share(of: end, among: hostsLeft, now: now) - now
            return min(own, .nanoseconds(Int64(clamping: share)))
        }
        let hosts = url.hostParameters.isEmpty ? [url.parameters] : url.hostParameters
        let own = url.hostParameters.isEmpty ? timeout : url.connectTimeout ?? timeout
        var reasons: [String] = []
        for (index, parameters) in hosts.enumerated() {
            guard let hostTime = time(own, sharedWith: hosts.count - index) else {
                reasons.append(Self.outOfTime(PostgresURL.hostAndPort(parameters)).message)
                break
            }
            let hostEnd = MonotonicClock.deadline(after: hostTime)
            do {
                var attempts = [parameters]
                let named = PostgresHostLookup.needsLookup(parameters)
                if named, let host = parameters["host"] {
                    let addresses = try await lookup.addresses(of: host, port: parameters["port"] ?? "5432",
                                                               deadline: hostEnd, loop: loop)
                    attempts = addresses.map { address in parameters.merging(["hostaddr": address]) { $1 } }
                }
                for (number, attempt) in attempts.enumerated() {
                    // A host given by address keeps its whole time; a name's addresses share what the lookup left.
                    let left = attempts.count - number
                    guard let share = named ? time(own, sharedWith: left, before: hostEnd) : hostTime else {
                        throw Self.outOfTime(PostgresURL.hostAndPort(parameters))
                    }
                    do {
                        return try await connect(start(attempt), to: PostgresURL.hostAndPort(parameters), loop: loop,
                                                 preparedStatements: preparedStatements, timeout: share)
                    } catch let error as PostgresError where error.reason == .unavailable && left > 1 {
                        continue
                    }
                }
            } catch let error as PostgresError where error.reason == .unavailable {
                reasons.append(error.message)
            }
        }
        guard hosts.count > 1 else {
            throw PostgresError.connection(reasons.first ?? "cannot connect to \(url)")
        }
        throw PostgresError.connection("cannot connect to \(url): \(reasons.joined(separator: "; "))")
    }

    /// The error for `server` when the call's time ran out before it could be tried.
    private static func outOfTime(_ server: String) -> PostgresError {
        PostgresError.connection("cannot connect to \(server): the call's time ran out before it was tried")
    }

    /// `PQconnectStartParams` with `parameters` as they are (no `dbname` expansion).
    private static func start(_ parameters: [String: String]) -> OpaquePointer? {
        let keys = Array(parameters.keys)
        let keywords: [UnsafeMutablePointer<CChar>?] = keys.map { strdup($0) } + [nil]
        let values: [UnsafeMutablePointer<CChar>?] = keys.map { strdup(parameters[$0] ?? "") } + [nil]
        defer { for pointer in keywords + values { free(pointer) } }
        return PQconnectStartParams(keywords.map { $0.map { UnsafePointer($0) } },
                                    values.map { $0.map { UnsafePointer($0) } }, 0)
    }

    /// Drives the connection libpq started (`handle`) to its end, within `timeout`.
    private static func connect(_ handle: OpaquePointer?, to server: String, loop: EventLoop, preparedStatements: Bool,
                                timeout: Duration) async throws -> PGConnection {
        guard let handle else { throw PostgresError.connection("libpq is out of memory") }
        let connection = PGConnection(takingOwnershipOf: handle, loop: loop, preparesStatements: preparedStatements)
        if PQstatus(handle) == CONNECTION_BAD, Self.refusesOptions(connection.libpqMessage) {
            throw PostgresError.configuration("DATABASE_URL has an option libpq refuses: \(connection.libpqMessage)")
        }
        let deadline = MonotonicClock.deadline(after: timeout)
        var polling = PGRES_POLLING_WRITING
        while PQstatus(handle) != CONNECTION_BAD {
            switch polling {
            case PGRES_POLLING_OK:
                guard PQsetnonblocking(handle, 1) == 0 else { break }
                // The server's notices (`CREATE TABLE IF NOT EXISTS` on a table that exists) would go to stderr.
                PQsetNoticeProcessor(handle, { _, _ in }, nil)
                return connection
            case PGRES_POLLING_READING, PGRES_POLLING_WRITING:
                let readiness = await connection.waitForSocket(writable: polling == PGRES_POLLING_WRITING,
                                                               deadline: deadline)
                if readiness == .timedOut {
                    throw PostgresError.connection("cannot connect to \(server): no answer within \(timeout)")
                }
                // The loop stopped (the process is shutting down): no wait can end before the deadline any more.
                if readiness == .shutdown {
                    throw PostgresError.connection("cannot connect to \(server): the process is shutting down")
                }
                polling = PQconnectPoll(handle)
                continue
            default:
                break
            }
            break
        }
        let message = "cannot connect to \(server): \(connection.libpqMessage)"
        if Self.refusesCredentials(connection.libpqMessage) { throw PostgresError.configuration(message) }
        throw PostgresError.connection(message)
    }

    /// Whether the server refused who the URL says is connecting (a wrong password, a role or database that does not
    /// exist, no `pg_hba.conf` entry): no wait mends that, so start-up reports it at once (found by an audit: a
    /// wrong password waited the whole 30 s, then read as a server that did not answer).
    static func refusesCredentials(_ message: String) -> Bool {
        // "authentication failed for user" covers every method's wording: password, md5, SCRAM, ident, PAM.
        ["authentication failed for user", "no pg_hba.conf entry", "\" does not exist"]
            .contains { message.contains($0) } && message.contains("FATAL")
    }

    /// Whether the server says, in the parameters it reports by itself (PostgreSQL 14 and later report
    /// `in_hot_standby` and `default_transaction_read_only` at the start and whenever they change), that it takes no
    /// writes: a standby, or a primary set read-only. A pooler that does not pass them on reports nothing.
    var serverIsReadOnly: Bool {
        Self.isOn(PQparameterStatus(handle, "in_hot_standby"))
            || Self.isOn(PQparameterStatus(handle, "default_transaction_read_only"))
    }

    private static func isOn(_ value: UnsafePointer<CChar>?) -> Bool {
        guard let value else { return false }
        return strcmp(value, "on") == 0
    }

    /// Marks the connection as not to be used again: the pool drops it instead of taking it back.
    func drop() { isBroken = true }

    /// Whether the server spoke while the connection sat idle, which it does when it ends the session (its FATAL
    /// "terminating connection" at a restart or a failover, then the close) or reports a parameter's change on its
    /// own (`default_transaction_read_only` turned on): either way the connection is not one to send a call on.
    /// One non-blocking look at the socket, no read.
    var spokeWhileIdle: Bool {
        var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) != 0
    }

    /// libpq's last message for this connection without its indented hints: one line per host it tried when the
    /// URL lists several (`... port 5432 failed: Connection refused; ... port 5433 failed: session is read-only`),
    /// so that every host's reason is seen, the read-only one included.
    private var libpqMessage: String { Self.reasons(in: String(cString: PQerrorMessage(handle))) }

    /// Whether libpq failed at once on an option value of the URL (`invalid sslmode value: "bogus"`, `invalid
    /// integer value "x" for connection option "keepalives"`, `could not match 2 port numbers to 3 hosts`), the
    /// messages of `connectOptions2` and of the first `PQconnectPoll` in libpq's fe-connect.c, rather than on a
    /// server it tried.
    static func refusesOptions(_ message: String) -> Bool {
        message.contains("invalid ") || message.contains("could not match ")
    }

    /// The lines of a libpq message that are not indented hints, joined by "; ".
    static func reasons(in message: String) -> String {
        let lines = message.split(separator: "\n").filter { !($0.first?.isWhitespace ?? true) }
        return lines.isEmpty ? "connection failed" : lines.joined(separator: "; ")
    }

    /// Runs `statements` in one round trip and returns one result per statement. Several statements go as one
    /// pipeline (`PQenterPipelineMode`) ending in one sync, so they run in one implicit transaction: all commit
    /// or, when one fails, none does. Each statement is prepared the first time this connection sees it (the
    /// prepare travels in the same pipeline), so PostgreSQL parses and plans it once per connection.
    /// - Throws: `PostgresError`: the first statement's error that failed, or `.unavailable` when the connection
    ///   broke or `deadline` (monotonic ns) passed (the connection is then marked broken).
    func execute(_ statements: [SQL], until deadline: UInt64) async throws -> [PGResult] {
        guard !isBroken else { throw PostgresError.connection("the connection is closed") }
        let encoded = statements.map { $0.arguments.map(PostgresBinary.encode) }
        let keys = zip(statements, encoded).map { PreparedKey(sql: $0.text, types: $1.map(\.type)) }
        let pipelined = statements.count > 1 || preparesStatements && keys.contains { prepared[$0] == nil }
        do {
            if pipelined, PQenterPipelineMode(handle) != 1 { throw brokenConnection() }
            var preparing: [Int: (key: PreparedKey, name: String)] = [:]  // by the statement that sends it
            for (index, key) in keys.enumerated() {
                guard preparesStatements else {
                    try send(sql: key, encoded[index])
                    continue
                }
                let name: String
                if let known = prepared[key] ?? preparing.values.first(where: { $0.key == key })?.name {
                    name = known
                } else {
                    name = "siwa_\(statementPrefix)_\(nextStatementNumber)"
                    nextStatementNumber += 1
                    guard PQsendPrepare(handle, name, key.sql, Int32(key.types.count), key.types) == 1 else {
                        throw brokenConnection()
                    }
                    preparing[index] = (key, name)
                }
                try send(name: name, encoded[index])
            }
            if pipelined, PQpipelineSync(handle) != 1 { throw brokenConnection() }
            try await flush(until: deadline)
            var results: [PGResult] = []
            var failure: PostgresError?
            for (index, statement) in statements.enumerated() {
                if let entry = preparing[index] {
                    let prepare = try await lastResult(until: deadline)
                    if let error = prepare.error(sql: statement.text) {
                        if failure == nil { failure = indexed(error, index) }
                    } else {
                        prepared[entry.key] = entry.name
                    }
                }
                let last = try await lastResult(until: deadline)
                if failure == nil, let error = last.error(sql: statement.text) { failure = indexed(error, index) }
                results.append(last)
            }
            if pipelined {
                var sync = try await nextResult(until: deadline)
                // The implicit commit failed (a deferred constraint, a serialization failure at commit): its error
                // comes before the sync, and is the write's, on a connection still good. Found by a review: it was
                // taken for a lost connection, a 503, and the connection dropped.
                if let commit = sync, let error = commit.error(sql: "COMMIT"), commit.status != PGRES_PIPELINE_ABORTED {
                    if failure == nil { failure = error }
                    sync = try await nextResult(until: deadline)
                    if sync == nil { sync = try await nextResult(until: deadline) }
                }
                guard let sync, sync.status == PGRES_PIPELINE_SYNC, PQexitPipelineMode(handle) == 1 else {
                    throw brokenConnection()
                }
            }
            if let failure { throw failure }
            return results
        } catch let error as PostgresError where error.connectionLost || error.endsConnection {
            isBroken = true
            throw error
        }
    }

    /// A statement prepared on this connection: the same text with the same parameter types.
    private struct PreparedKey: Hashable {
        var sql: String
        var types: [Oid]
    }

    /// The last result of the command whose results come next (results end with a nil from `PQgetResult`).
    private func lastResult(until deadline: UInt64) async throws -> PGResult {
        var last: PGResult?
        while let result = try await nextResult(until: deadline) { last = result }
        guard let last else { throw brokenConnection() }
        return last
    }

    private func indexed(_ error: PostgresError, _ index: Int) -> PostgresError {
        var error = error
        error.statementIndex = index
        return error
    }

    /// Executes the prepared statement `name` with `encoded` parameters, in binary, asking for binary results.
    private func send(name: String, _ encoded: [(type: Oid, bytes: [UInt8]?)]) throws {
        try send(encoded) { values, lengths, formats in
            PQsendQueryPrepared(handle, name, Int32(encoded.count), values, lengths, formats, 1)
        }
    }

    /// Sends `statement` unnamed (parse, bind and execute in one go), for poolers that move a session's
    /// statements between server connections.
    private func send(sql statement: PreparedKey, _ encoded: [(type: Oid, bytes: [UInt8]?)]) throws {
        try send(encoded) { values, lengths, formats in
            PQsendQueryParams(handle, statement.sql, Int32(encoded.count), statement.types, values, lengths, formats, 1)
        }
    }

    /// Lays out `encoded` for libpq and calls `call` with the values, their lengths and formats (all binary).
    private func send(_ encoded: [(type: Oid, bytes: [UInt8]?)],
                      _ call: ([UnsafePointer<CChar>?], [Int32], [Int32]) -> Int32) throws {
        let lengths = encoded.map { Int32($0.bytes?.count ?? 0) }
        let formats = [Int32](repeating: 1, count: encoded.count)
        var storage: [UInt8] = []
        var offsets: [Int?] = []
        for (_, bytes) in encoded {
            offsets.append(bytes.map { _ in storage.count })
            storage += bytes ?? []
        }
        storage.append(0)  // a base address even when every parameter is empty
        let sent = storage.withUnsafeBufferPointer { buffer -> Int32 in
            guard let start = buffer.baseAddress else { return 0 }
            let base = UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self)
            let values: [UnsafePointer<CChar>?] = offsets.map { $0.map { base + $0 } }
            return call(values, lengths, formats)
        }
        guard sent == 1 else { throw brokenConnection() }
    }

    /// Sends what libpq has buffered, waiting for the socket to take it.
    private func flush(until deadline: UInt64) async throws {
        while true {
            let status = PQflush(handle)
            if status == 0 { return }
            guard status == 1 else { throw brokenConnection() }
            try await waitForSocket(writable: true, until: deadline)
            guard PQconsumeInput(handle) == 1 else { throw brokenConnection() }
        }
    }

    /// The next result, or nil at the end of a statement's results; waits for the server without blocking.
    private func nextResult(until deadline: UInt64) async throws -> PGResult? {
        while PQisBusy(handle) != 0 {
            try await waitForSocket(writable: false, until: deadline)
            guard PQconsumeInput(handle) == 1 else { throw brokenConnection() }
        }
        return PQgetResult(handle).map(PGResult.init(takingOwnershipOf:))
    }

    private func waitForSocket(writable: Bool, until deadline: UInt64) async throws {
        switch await waitForSocket(writable: writable, deadline: deadline) {
        case .ready: return
        case .timedOut: throw PostgresError.connection("PostgreSQL did not answer in time")
        case .shutdown: throw brokenConnection()
        }
    }

    /// Parks until libpq's socket is readable (or, with `writable`, writable), or `deadline` passes.
    private func waitForSocket(writable: Bool, deadline: UInt64) async -> EventLoop.Readiness {
        await loop.waitOnce(for: PQsocket(handle), events: writable ? EPOLLOUT.rawValue : 0, deadline: deadline)
    }

    private func brokenConnection() -> PostgresError {
        .connection(PQstatus(handle) == CONNECTION_BAD ? "the connection to PostgreSQL was lost: \(libpqMessage)"
                    : "the connection to PostgreSQL failed: \(libpqMessage)")
    }
}
