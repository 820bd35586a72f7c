import IOCore
import Synchronization

/// Up to `size` connections to one PostgreSQL server, opened when first needed and replaced when they break.
///
/// A call takes an idle connection (or opens one, or waits in line for one), runs its statements in one round
/// trip (`PGConnection.execute`) and gives the connection back. A connection that broke is dropped, and the next
/// call opens a new one: after an outage the pool reconnects by itself, and until then calls fail at once with
/// `PostgresError` `.unavailable`, naming host and port.
package final class PostgresPool: Sendable {
    /// The server; `description` names host, port and database, never the password.
    package let url: PostgresURL
    /// The most connections this pool keeps (`DATABASE_POOL_SIZE`).
    package let size: Int
    /// The loops the connections wait on.
    private let group: EventLoopGroup
    /// Whether statements are prepared once per connection (`DATABASE_PREPARED_STATEMENTS`).
    package let preparedStatements: Bool
    private let placeholders = PostgresPlaceholders()
    private let state = Mutex(State())
    private let roundTripCount = Atomic<Int>(0)
    /// Set for good once a statement this pool prepared was found missing or already there on the server
    /// (`PostgresError.isPreparedStatementLost`): a pooler in transaction mode sits between, and only a restart with
    /// `DATABASE_PREPARED_STATEMENTS=off` mends it. `/ready` answers 503 from then on (`takesWrites`), so that a
    /// balancer takes out an instance whose sign-ins fail whenever the pooler moves them to another server connection.
    private let preparedStatementsLost = Atomic<Bool>(false)

    /// Round trips made so far: one per call of `write`, `read` or `readInline`, however many statements it
    /// carried (what a sign-in costs is measured with this; `pg_stat_statements` counts statements instead).
    package var roundTrips: Int { roundTripCount.load(ordering: .relaxed) }

    /// The default `size`.
    package static let defaultSize = 8
    /// How long opening a connection may take.
    package static let connectTimeout: Duration = .seconds(5)
    /// How long one call may take in all, from waiting for a connection through opening one to its statements'
    /// last result: a server that stopped answering (frozen, or cut off) costs a request at most this, then 503.
    package static let statementTimeout: Duration = .seconds(10)
    /// How long PostgreSQL itself lets one statement run (`statement_timeout`, set on each connection the pool opens
    /// unless the role, the database or the URL's `options` set a shorter one): a transaction stuck behind a lock is
    /// rolled back by the server and answers before the call's `statementTimeout` ends, so that call's 503 means
    /// nothing was written and the connection is kept. Found by an audit: the pool dropped the connection at its own
    /// deadline while the backend, still waiting, stayed beside the new connections (past `DATABASE_POOL_SIZE`,
    /// toward `max_connections`) and went on to commit what had been answered 503.
    ///
    /// The call's time counts from its start and the server's from its statement's arrival, so a call that first
    /// waited for a connection is given a shorter one for its transaction (`tightenedServerTimeout`). Found by a
    /// code review: a call that waited over a second reached its deadline first, its connection was dropped, and the
    /// backend committed after the 503 when the lock went before the server's 9 s.
    package static let serverStatementTimeout: Duration = .seconds(9)
    /// How long one migration may take, its wait for another instance's migration lock included: an index built
    /// over a large table takes minutes, and nothing waits on it but start-up.
    package static let migrationTimeout: Duration = .seconds(3600)

    private struct State {
        var idle: [PGConnection] = []
        var open = 0
        /// Calls waiting for a connection, in order.
        var waiters: [Waiter] = []
        /// The deadline the expiry timer is set for: the earliest waiter's, one timer whatever the number waiting.
        var expiryAt: UInt64?
    }

    /// A call waiting for a connection, resumed once: with one, with a free slot to open its own, or at `deadline`.
    private struct Waiter {
        let deadline: UInt64
        let continuation: CheckedContinuation<Handoff, Never>
    }

    private enum Handoff {
        case connection(PGConnection)
        case openYourOwn
        case timedOut
    }

    /// How long opening one connection may take here (`connectTimeout` unless tests under a sanitizer stretch it).
    private let timeToConnect: Duration
    /// The server's `statement_timeout` in milliseconds, as set on each new connection (`connectionSetUp`).
    private let serverTimeoutMilliseconds: Int
    /// What each new connection runs first: `statement_timeout` at `serverStatementTimeout` (or a test's), unless
    /// the role, the database or the URL's `options` set a shorter one. A longer one would let the call give up
    /// first, and its transaction commit after the 503 (found by an audit, with a role's 20 s).
    private let connectionSetUp: SQL

    /// A pool for `url`; connects nothing yet (`waitUntilAvailable` does, at start). Its connections wait on the
    /// process's default event loop.
    package convenience init(url: PostgresURL, size: Int = defaultSize, connectTimeout: Duration = connectTimeout,
                            preparedStatements: Bool = true,
                            serverStatementTimeout: Duration = serverStatementTimeout) throws {
        self.init(url: url, size: size, connectTimeout: connectTimeout, preparedStatements: preparedStatements,
                  group: .shared, serverStatementTimeout: serverStatementTimeout)
    }

    /// A pool whose connections wait on `group`'s loops: each on the loop of the task that opened it.
    /// - Parameter preparedStatements: prepare each statement once per connection (faster); false sends every
    ///   statement unnamed, which a pooler in transaction mode can carry between server connections.
    package init(url: PostgresURL, size: Int = defaultSize, connectTimeout: Duration = connectTimeout,
                 preparedStatements: Bool = true, group: EventLoopGroup,
                 serverStatementTimeout: Duration = serverStatementTimeout) {
        self.url = url
        self.size = max(size, 1)
        self.timeToConnect = connectTimeout
        self.preparedStatements = preparedStatements
        self.group = group
        let milliseconds = serverStatementTimeout.components.seconds * 1000
            + serverStatementTimeout.components.attoseconds / 1_000_000_000_000_000
        serverTimeoutMilliseconds = Int(milliseconds)
        connectionSetUp = Self.lowerStatementTimeout(to: Int(milliseconds), transactionOnly: false)
    }

    /// `statement_timeout` set to `milliseconds` unless the one in force is shorter (`pg_settings.setting` is in
    /// milliseconds whatever unit set it), for the session or, with `transactionOnly`, for this transaction alone
    /// (`set_config(…, true)`). One text either way, prepared once per connection; the value is a parameter.
    private static func lowerStatementTimeout(to milliseconds: Int, transactionOnly: Bool) -> SQL {
        SQL("""
            SELECT set_config('statement_timeout', $1, \(transactionOnly)) FROM pg_settings
            WHERE name = 'statement_timeout' AND (setting::bigint = 0 OR setting::bigint > $2)
            """, ["\(milliseconds)", milliseconds])
    }

    /// Runs `statements` in one round trip on one connection (several are pipelined in one implicit transaction)
    /// and returns each one's result.
    /// The call runs on a loop of the pool's group (the caller's own when it is one), so the waits on the socket
    /// resume it with no hop to Swift's cooperative pool.
    func execute(_ statements: [SQL], timeout: Duration = statementTimeout) async throws -> [SQLResult] {
        try await withTaskExecutorPreference(group.any()) {
            try await executeOnLoop(statements, timeout: timeout, settingUp: nil)
        }
    }

    /// `write` for a migration: one transaction, within `migrationTimeout` instead of `statementTimeout`, and with
    /// the server's `statement_timeout` lifted for it (`set_config(…, true)`, for this transaction only; `SET LOCAL`
    /// would do the same in the pipeline's implicit transaction but warn in the server's log, found by an audit).
    @discardableResult
    package func migrationWrite(_ statements: [SQL]) async throws -> [SQLResult] {
        try await withTaskExecutorPreference(group.any()) {
            try await executeOnLoop(statements, timeout: Self.migrationTimeout,
                                    settingUp: SQL("SELECT set_config('statement_timeout', '0', true)"))
        }
    }

    /// Runs `statements` on a connection within `timeout`. `settingUp`, when given, is sent first in the same
    /// transaction (a `statement_timeout` for it), as is the one `tightenedServerTimeout` gives a call that waited
    /// for its connection; its result is not returned, and a failing statement's index is the caller's.
    private func executeOnLoop(_ statements: [SQL], timeout: Duration, settingUp: SQL?) async throws -> [SQLResult] {
        let rewritten = statements.map { SQL(placeholders.rewrite($0.text), $0.arguments) }
        let deadline = MonotonicClock.deadline(after: timeout)
        let connection = try await checkOut(timeout: timeout, deadline: deadline)
        defer { checkIn(connection) }
        if connection.serverIsReadOnly {
            // A connection on a read-only server is dropped, never reused, reads included: an instance that reaches
            // only such servers answers 503 until a writable one is found.
            connection.drop()
            throw PostgresError(sqlState: "25006", message: "PostgreSQL at \(url) takes no writes "
                                + "(it reports in_hot_standby or default_transaction_read_only on)")
        }
        let now = MonotonicClock.now()
        guard now < deadline else { throw Self.outOfTime(timeout, url: url) }
        roundTripCount.add(1, ordering: .relaxed)
        do {
            guard let leading = settingUp ?? tightenedServerTimeout(left: deadline - now) else {
                return try await connection.execute(rewritten, until: deadline)
                    .map { SQLResult(rows: .postgres($0), changes: $0.changes) }
            }
            do {
                return try await connection.execute([leading] + rewritten, until: deadline).dropFirst()
                    .map { SQLResult(rows: .postgres($0), changes: $0.changes) }
            } catch var error as PostgresError {
                error.statementIndex = error.statementIndex.map { $0 - 1 }
                throw error
            }
        } catch let error as PostgresError where preparedStatements && error.isPreparedStatementLost {
            preparedStatementsLost.store(true, ordering: .relaxed)
            throw error
        }
    }

    /// The least time a call keeps between the server's `statement_timeout` and its own end, for the server's
    /// error to reach it first; a call left less (it waited for a connection) gets `tightenedServerTimeout`.
    static let serverTimeoutMargin: Duration = .milliseconds(500)

    /// For a call left less than the server's `statement_timeout` and `serverTimeoutMargin` (it waited for a
    /// connection): the statement that lowers the timeout to nine tenths of what is left, for this transaction only
    /// (`set_config(…, true)`), unless the connection's own is shorter. The server then ends a transaction stuck
    /// behind a lock before the call gives up, so the call's 503 still means that nothing was written. Nil for
    /// every other call: no statement is added.
    private func tightenedServerTimeout(left nanoseconds: UInt64) -> SQL? {
        let milliseconds = Int(nanoseconds / 1_000_000)
        let margin = Int(MonotonicClock.nanoseconds(Self.serverTimeoutMargin) / 1_000_000)
        guard serverTimeoutMilliseconds > 0, milliseconds < serverTimeoutMilliseconds + margin else { return nil }
        return Self.lowerStatementTimeout(to: max(milliseconds * 9 / 10, 1), transactionOnly: true)
    }

    /// Waits until the server answers `SELECT 1`, retrying for up to `timeout`: what start-up does before it
    /// gives up.
    /// - Throws: the last `PostgresError`, whose message names host and port.
    package func waitUntilAvailable(timeout: Duration = .seconds(30), retryEvery interval: Duration = .milliseconds(250))
        async throws
    {
        let deadline = ContinuousClock.now + timeout
        while true {
            do {
                _ = try await execute([SQL("SELECT 1")])
                return
            } catch let error as PostgresError where error.reason == .unavailable && ContinuousClock.now < deadline {
                try await Task.sleep(for: interval)
            }
        }
    }

    /// An idle connection, a new one in a free slot, or the first one handed back, waiting in line until the
    /// call's `deadline` (monotonic ns, `timeout` from its start): under a server that stopped answering, calls
    /// queue behind the stuck ones, and each still ends in time (a 503) instead of waiting for ever.
    private func checkOut(timeout: Duration, deadline: UInt64) async throws -> PGConnection {
        let handoff: Handoff
        if let now = state.withLock({ Self.takeFree(&$0, size: size) }) {
            handoff = now
        } else {
            handoff = await waitInLine(until: deadline)
        }
        switch handoff {
        case .connection(let connection):
            guard connection.spokeWhileIdle else { return connection }
            // Ended by the server while idle (a restart, a failover): a new connection takes its slot before the call
            // is sent on a dead one. Found by an audit: each idle connection cost a request its 503 after PostgreSQL
            // came back, however long before, and `/ready` answered 503 to a database that answered.
            connection.drop()
            return try await open(before: deadline)
        case .openYourOwn: return try await open(before: deadline)
        case .timedOut:
            throw PostgresError.connection("no connection to PostgreSQL at \(url) came free within \(timeout) "
                                           + "(all \(size) of DATABASE_POOL_SIZE busy)")
        }
    }

    /// An idle connection, or a free slot to open one in (counted as open), when there is one.
    private static func takeFree(_ state: inout State, size: Int) -> Handoff? {
        if let connection = state.idle.popLast() { return .connection(connection) }
        guard state.open < size else { return nil }
        state.open += 1
        return .openYourOwn
    }

    /// Waits for the first connection or slot handed back, until `deadline`. What came free since the first look
    /// is taken at once, so a call never waits while a connection idles.
    private func waitInLine(until deadline: UInt64) async -> Handoff {
        await withCheckedContinuation { (continuation: CheckedContinuation<Handoff, Never>) in
            let (now, arm) = state.withLock { state -> (Handoff?, Bool) in
                if let free = Self.takeFree(&state, size: size) { return (free, false) }
                state.waiters.append(Waiter(deadline: deadline, continuation: continuation))
                // A call with a shorter timeout than those already waiting (a request behind a migration) needs
                // the timer earlier.
                guard state.expiryAt.map({ deadline < $0 }) ?? true else { return (nil, false) }
                state.expiryAt = deadline
                return (nil, true)
            }
            if let now { return continuation.resume(returning: now) }
            if arm { armExpiry(at: deadline) }
        }
    }

    /// Sets the timer that ends the waits whose deadline has passed.
    private func armExpiry(at deadline: UInt64) {
        group.any().schedule(at: deadline) { [self] in expireWaiters(timerAt: deadline) }
    }

    /// Ends every wait whose deadline has passed with `.timedOut`. The current timer (`expiryAt`) sets itself again
    /// for the earliest wait left; one that an earlier deadline replaced only ends the waits due.
    private func expireWaiters(timerAt: UInt64) {
        let now = MonotonicClock.now()
        let (expired, next) = state.withLock { state -> ([Waiter], UInt64?) in
            let expired = state.waiters.filter { $0.deadline <= now }
            state.waiters.removeAll { $0.deadline <= now }
            guard state.expiryAt == timerAt else { return (expired, nil) }
            state.expiryAt = state.waiters.map(\.deadline).min()
            return (expired, state.expiryAt)
        }
        for waiter in expired { waiter.continuation.resume(returning: .timedOut) }
        if let next { armExpiry(at: next) }
    }

    /// The error of a call whose time ran out between its steps.
    private static func outOfTime(_ timeout: Duration, url: PostgresURL) -> PostgresError {
        PostgresError.connection("PostgreSQL at \(url) did not answer within \(timeout)")
    }

    /// Opens a connection for a slot already counted in `open`, each host within `timeToConnect` (or the URL's
    /// `connect_timeout`), all before `deadline`; gives the slot back when it fails.
    private func open(before deadline: UInt64) async throws -> PGConnection {
        do {
            let connection = try await PGConnection.connect(url, loop: group.any(), preparedStatements: preparedStatements,
                                                            timeout: timeToConnect, deadline: deadline)
            _ = try await connection.execute([connectionSetUp], until: deadline)
            return connection
        } catch {
            release(slot: ())
            throw error
        }
    }

    private func checkIn(_ connection: PGConnection) {
        guard !connection.isBroken else { return release(slot: ()) }
        let waiter = state.withLock { state -> Waiter? in
            guard !state.waiters.isEmpty else {
                state.idle.append(connection)
                return nil
            }
            return state.waiters.removeFirst()
        }
        waiter?.continuation.resume(returning: .connection(connection))
    }

    /// A connection slot is free again: the next waiter opens its own connection in it.
    private func release(slot: Void) {
        let waiter = state.withLock { state -> Waiter? in
            guard !state.waiters.isEmpty else {
                state.open -= 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        waiter?.continuation.resume(returning: .openYourOwn)
    }
}

/// PostgreSQL behind `DatabaseClient`: a write is one pipeline in one implicit transaction, a read one statement;
/// each is one round trip.
extension PostgresPool: DatabaseClient {
    package var engine: DatabaseEngine { .postgres }

    /// `urgency` changes nothing here: every transaction commits on its own connection at once.
    package func write(_ statements: [SQL], urgency: WriteUrgency) async throws -> [SQLResult] {
        try await execute(statements)
    }

    package func read<T: Sendable>(_ statement: SQL, _ transform: @escaping @Sendable (Row) throws -> T) async throws
        -> [T]
    {
        try await execute([statement])[0].map(transform)
    }

    package func readInline<T: Sendable>(_ statement: SQL, _ transform: @escaping @Sendable (Row) throws -> T)
        async throws -> [T]
    {
        try await read(statement, transform)
    }

    /// How long one of this role's commits may wait for a synchronous standby (`wait_event = 'SyncRep'`) before
    /// `takesWrites` answers false: with `synchronous_standby_names` set and no standby attached, every commit waits
    /// for ever, `statement_timeout` does not end that wait, and a read still answers. Found by a black-box review:
    /// `/ready` stayed 200 while every sign-in answered 503 after `statementTimeout`.
    package static let synchronousCommitStall: Duration = .seconds(5)

    package func takesWrites() async -> Bool {
        guard !preparedStatementsLost.load(ordering: .relaxed) else { return false }
        let stall = Self.synchronousCommitStall.components.seconds
        let check = SQL("""
            SELECT current_setting('transaction_read_only') = 'off' AND NOT EXISTS (
                SELECT 1 FROM pg_stat_activity
                WHERE wait_event = 'SyncRep' AND datname = current_database() AND usename = session_user
                    AND query_start < statement_timestamp() - interval '\(stall) s')
            """)
        let answered = (try? await read(check) { try $0[0] as Bool }) == [true]
        // Read again: a check that began before another call found the statements lost answers false as well.
        // Found by a black-box review: one `/ready` answered 200 after the first 503.
        return answered && !preparedStatementsLost.load(ordering: .relaxed)
    }

    package var lastingProblem: String? {
        guard preparedStatementsLost.load(ordering: .relaxed) else { return nil }
        return "PostgreSQL at \(url) lost a prepared statement (a pooler in transaction mode, such as PgBouncer?): "
            + "set DATABASE_PREPARED_STATEMENTS=off and restart"
    }

    /// Nothing to do: PostgreSQL keeps no file beside the process, and its sessions end when the process does.
    package func close() async {}
}
