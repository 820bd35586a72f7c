import Foundation
import IOCore
import Testing
import TestSupport
@testable import Storage

/// The PostgreSQL engine against a real server (`PostgresCluster`): binary values both ways, pipelines in one
/// implicit transaction, errors with the same reasons as SQLite's, a bounded pool, and a URI's password kept out
/// of every message.
@Suite(.postgres, .timeLimit(.minutes(2)))
struct PostgresPoolTests {
    /// A pool on a database of its own in the shared cluster.
    private func pool(size: Int = 4) async throws -> PostgresPool {
        try PostgresPool(url: try PostgresURL(try await PostgresCluster.sharedCluster().newDatabase()), size: size,
                         connectTimeout: .seconds(5 * Sanitizer.timeScale))
    }

    @Test func everyValueRoundTripsInBinary() async throws {
        let pool = try await pool()
        let id = UUID()
        let when = Date(timeIntervalSince1970: 1_732_451_234.567)
        let values = try #require(try await pool.readOne(SQL(
            "SELECT ?::bigint, ?::float8, ?::text, ?::bytea, ?::boolean, ?::uuid, ?::timestamptz, ?::text",
            [Int64(-42), 2.5, "héllo", [UInt8]([0, 255, 7]), true, id, when, String?.none])) { row in
            (try row[0] as Int64, try row[1] as Double, try row[2] as String, try row[3] as [UInt8],
             try row[4] as Bool, try row[5] as UUID, try row[6] as Date, try row[7] as String?)
        })
        #expect(values.0 == -42 && values.1 == 2.5 && values.2 == "héllo" && values.3 == [0, 255, 7])
        #expect(values.4 && values.5 == id && values.7 == nil)
        #expect(abs(values.6.timeIntervalSince(when)) < 0.000_001)
    }

    @Test func aPipelineIsOneTransaction() async throws {
        let pool = try await pool()
        try await pool.write(SQL("CREATE TABLE t (id bigint PRIMARY KEY, name text NOT NULL)"))
        let results = try await pool.write([
            SQL("INSERT INTO t VALUES (?, ?)", [1, "one"]),
            SQL("INSERT INTO t VALUES (?, ?) RETURNING id", [2, "two"]),
            SQL("SELECT count(*) FROM t"),
        ])
        #expect(try results[1].first { try $0[0] as Int } == 2)
        #expect(try results[2].first { try $0[0] as Int } == 2)

        let error = await #expect(throws: PostgresError.self) {
            try await pool.write([
                SQL("INSERT INTO t VALUES (?, ?)", [3, "three"]),
                SQL("INSERT INTO t VALUES (?, ?)", [1, "again"]),
            ])
        }
        #expect(error?.reason == .uniqueConstraint && error?.statementIndex == 1)
        #expect(try await pool.readOne(SQL("SELECT count(*) FROM t")) { try $0[0] as Int } == 2, "rolled back")
    }

    @Test func aBadStatementIsAnErrorAndTheConnectionStaysUsable() async throws {
        let pool = try await pool(size: 1)
        let error = await #expect(throws: PostgresError.self) { try await pool.read(SQL("SELECT * FROM missing")) { _ in 0 } }
        #expect(error?.sqlState == "42P01" && error?.reason == .other)
        #expect(try await pool.readOne(SQL("SELECT 1")) { try $0[0] as Int } == 1)
    }

    @Test func callsBeyondThePoolSizeWaitInLine() async throws {
        let pool = try await pool(size: 3)
        let answers = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<40 {
                group.addTask { try await pool.readOne(SQL("SELECT ?::bigint", [index])) { try $0[0] as Int } ?? -1 }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.sorted() == Array(0..<40))
        let connections = try await pool.readOne(
            SQL("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()")) { try $0[0] as Int }
        #expect((connections ?? 0) <= 3)
    }

    /// Keeps `pool`'s one connection busy until `release` is called: the call waits on an advisory lock that
    /// `watcher`'s session holds (in this test's database: other tests use the same key in theirs). Returns once the
    /// call waits there. A fixed `pg_sleep` ended too soon when the whole suite starved a test for seconds.
    private func occupy(_ pool: PostgresPool, holding watcher: PostgresPool) async throws
        -> (call: Task<[SQLResult], any Error>, release: @Sendable () async throws -> Void) {
        try await Self.advisoryLock(Self.occupiedKey, in: watcher)
        let call = Task { try await pool.execute([SQL("SELECT pg_advisory_xact_lock(\(Self.occupiedKey))")],
                                                 timeout: .seconds(120)) }
        try await Self.waitUntil(watcher, """
            SELECT count(*) = 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = \(Self.occupiedKey) AND NOT granted
                AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
            """)
        return (call, { try await Self.advisoryLock(Self.occupiedKey, in: watcher, release: true) })
    }

    private static let occupiedKey = 41

    /// Takes, or with `release` gives back, the session advisory lock `key` in `session`'s one connection: a call
    /// that asks for it (`pg_advisory_xact_lock`) waits until it is given back.
    private static func advisoryLock(_ key: Int, in session: PostgresPool, release: Bool = false) async throws {
        _ = try await session.read(SQL("SELECT pg_advisory_\(release ? "unlock" : "lock")(\(key))")) { _ in 0 }
    }

    /// A fresh database with an empty table `locked`, a pool of one connection to hold locks from (`holder`), and a
    /// pool of one connection whose server ends a statement after `serverStatementTimeout` (`pool`).
    private func lockedTable(serverStatementTimeout: Duration) async throws -> (holder: PostgresPool, pool: PostgresPool) {
        let url = try PostgresURL(try await PostgresCluster.sharedCluster().newDatabase())
        let holder = try PostgresPool(url: url, size: 1, connectTimeout: .seconds(5 * Sanitizer.timeScale))
        let pool = try PostgresPool(url: url, size: 1, connectTimeout: .seconds(5 * Sanitizer.timeScale),
                                    serverStatementTimeout: serverStatementTimeout)
        try await holder.write(SQL("CREATE TABLE locked (id bigint PRIMARY KEY)"))
        return (holder, pool)
    }

    /// Returns once a `pg_sleep` runs in `watcher`'s database: the pool's one connection is busy.
    private func waitUntilSleeping(_ watcher: PostgresPool) async throws {
        let sleeping = SQL("""
            SELECT count(*)::bigint FROM pg_stat_activity WHERE datname = current_database() AND state = 'active'
                AND query LIKE 'SELECT pg_sleep%'
            """)
        while try await watcher.readOne(sleeping, { try $0[0] as Int }) != 1 {
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// A call that waits in line for a connection waits its timeout at most, then is `.unavailable` (a 503): under
    /// a server that stopped answering, calls queued behind the stuck ones waited for ever.
    @Test func aCallWaitingInLineGivesUpAtItsTimeout() async throws {
        let pool = try await pool(size: 1)
        let watcher = try PostgresPool(url: pool.url, size: 1)
        let holder = try await occupy(pool, holding: watcher)
        let waited = await #expect(throws: PostgresError.self) {
            try await pool.execute([SQL("SELECT 1")], timeout: .milliseconds(300))
        }
        #expect(waited?.reason == .unavailable)
        #expect(waited?.message.contains("came free within") == true, "\(waited?.message ?? "")")
        try await holder.release()
        _ = try await holder.call.value
        #expect(try await pool.readOne(SQL("SELECT 7::bigint")) { try $0[0] as Int } == 7, "the pool goes on")
    }

    /// A call with a short timeout behind one with a long timeout (a request behind a migration) still gives up at
    /// its own: the one expiry timer follows the earliest deadline, not the first one set.
    @Test func aShortTimeoutBehindALongOneGivesUpAtItsOwn() async throws {
        let pool = try await pool(size: 1)
        let watcher = try PostgresPool(url: pool.url, size: 1)
        let holder = try await occupy(pool, holding: watcher)
        let patient = Task { try await pool.execute([SQL("SELECT 1")], timeout: .seconds(60)) }
        try await Task.sleep(for: .milliseconds(100))
        let started = ContinuousClock.now
        let hurried = await #expect(throws: PostgresError.self) {
            try await pool.execute([SQL("SELECT 1")], timeout: .milliseconds(300))
        }
        #expect(hurried?.message.contains("came free within") == true, "\(hurried?.message ?? "")")
        // A timer that followed the first deadline set would end it at the patient call's 60 s.
        #expect(ContinuousClock.now - started < .seconds(30), "at its own timeout, not the patient call's")
        try await holder.release()
        _ = try await holder.call.value
        #expect(try await patient.value.count == 1, "the long wait is served")
    }

    /// A call's timeout bounds it in all, opening a connection included: found by an audit, a call that opened a
    /// connection to a frozen server took the connect time (5 s) on top of its 10 s.
    @Test func aCallsTimeoutBoundsOpeningItsConnection() async throws {
        let silent = try SilentListener()
        let pool = try PostgresPool(url: try PostgresURL("postgres://postgres@127.0.0.1:\(silent.port)/x"), size: 1,
                                    connectTimeout: .seconds(60))
        let started = ContinuousClock.now
        let error = await #expect(throws: PostgresError.self) {
            try await pool.execute([SQL("SELECT 1")], timeout: .milliseconds(300))
        }
        #expect(error?.reason == .unavailable)
        #expect(ContinuousClock.now - started < .seconds(30), "within the call's time, not the connect time")
        // Tried within what the call had left, or, on a machine so loaded that nothing was left, not tried at all.
        let message = error?.message ?? ""
        #expect(message.contains("no answer within 0.") || message.contains("the call's time ran out"), "\(message)")

        // Several hosts share the call's time, each an even share of what is left; found by a review, each had its
        // own connect time.
        let second = try SilentListener()
        let hosts = try PostgresPool(url: try PostgresURL("postgres://postgres@127.0.0.1:\(silent.port),"
                                                          + "127.0.0.1:\(second.port)/x"), size: 1, connectTimeout: .seconds(60))
        let both = ContinuousClock.now
        let shared = await #expect(throws: PostgresError.self) {
            try await hosts.execute([SQL("SELECT 1")], timeout: .seconds(4))
        }
        #expect(ContinuousClock.now - both < .seconds(30), "within the call's time, not one connect time per host")
        // Each host tried in its share (about 2 s each), not the first in all of the call's time. The call is 4 s so
        // that a loaded machine leaves the second host some of it: with 300 ms, a full-suite CI run reached the second
        // host after the call's time had run out.
        let tries = (shared?.message ?? "").components(separatedBy: "no answer within ").dropFirst()
        #expect(tries.count == 2, "both tried, each in its share: \(shared?.message ?? "")")
        #expect(tries.allSatisfy { $0.hasPrefix("0.") || $0.hasPrefix("1.") || $0.hasPrefix("2.") }, "\(Array(tries))")
    }

    /// A call that waited for a connection and is then stuck behind a lock is ended by the server before its own
    /// deadline, with nothing written: its transaction gets a `statement_timeout` from what the call has left. Found
    /// by a code review: the server's timeout counted from the statement's arrival, the call gave up first (a 503),
    /// and the transaction committed when the lock went. Scaled down: a 4 s call, a 3 s server timeout, the pool's
    /// one connection busy for 2 s, and an advisory lock that the test releases only after the call has returned.
    @Test func aCallThatWaitedForAConnectionIsEndedByTheServerBeforeItsOwnDeadline() async throws {
        let (holder, pool) = try await lockedTable(serverStatementTimeout: .seconds(3))
        try await Self.advisoryLock(7, in: holder)
        let busy = Task { try await pool.execute([SQL("SELECT pg_sleep(2)")], timeout: .seconds(30)) }
        try await waitUntilSleeping(holder)
        let waited = await #expect(throws: PostgresError.self) {
            try await pool.execute([SQL("SELECT pg_advisory_xact_lock(7)"), SQL("INSERT INTO locked VALUES (1)")],
                                   timeout: .seconds(4))
        }
        #expect(waited?.reason == .unavailable)
        try await Self.advisoryLock(7, in: holder, release: true)
        _ = try await busy.value
        try await Task.sleep(for: .milliseconds(500))  // a backend still waiting would now take the lock and commit
        #expect(try await holder.readOne(SQL("SELECT count(*) FROM locked")) { try $0[0] as Int } == 0,
                "the insert answered with an error was not committed when the lock went")
        let fresh = try await pool.readOne(SQL("SELECT current_setting('statement_timeout')")) { try $0[0] as String }
        #expect(fresh == "3s", "the shorter timeout was for that transaction only")
    }

    /// A connection being opened when its loop stops (the process shutting down) fails at once, naming why. Found
    /// by a code review: the stopped loop's answer was taken for a ready socket, and the connect polled on until its
    /// deadline. The deadline is longer than the test's time limit, so only the stop can end the call; the message
    /// tells the two apart without timing the test (a clock bound failed once with the whole suite starving it).
    @Test(.timeLimit(.minutes(1))) func openingAConnectionOnAStoppedLoopFailsAtOnce() async throws {
        let silent = try SilentListener()
        let group = try EventLoopGroup(loopCount: 1)
        let loop = group.next()
        let url = try PostgresURL("postgres://postgres@127.0.0.1:\(silent.port)/x")
        let connecting = Task { try await PGConnection.connect(url, loop: loop, timeout: .seconds(600)) }
        try await Task.sleep(for: .milliseconds(200))
        group.shutdown()
        let error = await #expect(throws: PostgresError.self) { _ = try await connecting.value }
        #expect(error?.message.contains("the process is shutting down") == true, "\(error?.message ?? "")")
    }

    @Test func theServerGoingAwayIsUnavailableAndThePoolReconnects() async throws {
        let cluster = try await PostgresCluster.started()
        defer { cluster.stop() }
        let pool = try PostgresPool(url: try PostgresURL(try await cluster.newDatabase()), size: 2,
                                    connectTimeout: .seconds(5 * Sanitizer.timeScale))
        #expect(try await pool.read(SQL("SELECT 1")) { _ in 1 }.count == 1)
        try await cluster.killServer()
        let error = await #expect(throws: PostgresError.self) { try await pool.read(SQL("SELECT 1")) { _ in 1 } }
        #expect(error?.reason == .unavailable)
        try await cluster.restartServer()
        try await pool.waitUntilAvailable(timeout: .seconds(20))
        #expect(try await pool.read(SQL("SELECT 1")) { _ in 1 }.count == 1)
    }

    /// A connection the server ended while it sat idle (at a restart, a failover, `pg_terminate_backend`) is
    /// replaced before a call is sent on it, and the call succeeds. Found by an audit: each idle connection cost a
    /// request its 503 after PostgreSQL came back, however long before.
    @Test func aConnectionTheServerEndedWhileIdleIsReplacedBeforeACallIsSentOnIt() async throws {
        let url = try PostgresURL(try await PostgresCluster.sharedCluster().newDatabase())
        let pool = try PostgresPool(url: url, size: 1, connectTimeout: .seconds(5 * Sanitizer.timeScale))
        let admin = try PostgresPool(url: url, size: 1, connectTimeout: .seconds(5 * Sanitizer.timeScale))
        let ended = try #require(try await pool.readOne(SQL("SELECT pg_backend_pid()::bigint")) { try $0[0] as Int })
        #expect(try await admin.readOne(SQL("SELECT pg_terminate_backend(?::int)", [ended])) { try $0[0] as Bool } == true)
        try await Self.waitUntil(admin, "SELECT count(*) = 0 FROM pg_stat_activity WHERE pid = ?", [ended])
        let next = try #require(try await pool.readOne(SQL("SELECT pg_backend_pid()::bigint")) { try $0[0] as Int })
        #expect(next != ended)
    }

    /// A statement stuck behind a lock is ended by the server at the pool's `serverStatementTimeout`, before the
    /// call's own timeout: the call is `.unavailable` (a 503), nothing of its transaction is written, and the
    /// connection is kept (no backend left waiting beside a new one). Found by an audit: the pool gave up at its
    /// own deadline and dropped the connection, while the backend waited on and then committed. The lock is an
    /// advisory lock the holder's session keeps until the call has returned; the error's SQLSTATE (57014, the
    /// server's cancel) tells the server's timeout from the call's.
    @Test func aStatementStuckBehindALockIsEndedByTheServerWithNothingWritten() async throws {
        let (holder, pool) = try await lockedTable(serverStatementTimeout: .milliseconds(500))
        let backend = try #require(try await pool.readOne(SQL("SELECT pg_backend_pid()::bigint")) { try $0[0] as Int })
        try await Self.advisoryLock(8, in: holder)
        let error = await #expect(throws: PostgresError.self) {
            try await pool.execute([SQL("INSERT INTO locked VALUES (1)"), SQL("SELECT pg_advisory_xact_lock(8)"),
                                    SQL("INSERT INTO locked VALUES (2)")], timeout: .seconds(10))
        }
        #expect(error?.sqlState == "57014" && error?.reason == .unavailable, "\(String(describing: error))")
        try await Self.advisoryLock(8, in: holder, release: true)
        try await Task.sleep(for: .milliseconds(500))  // a backend still waiting would now take the lock and commit
        #expect(try await pool.readOne(SQL("SELECT count(*) FROM locked")) { try $0[0] as Int } == 0)
        #expect(try await pool.readOne(SQL("SELECT pg_backend_pid()::bigint")) { try $0[0] as Int } == backend)
    }

    /// The pool's `statement_timeout` replaces none and a longer one (with which the call would give up first and
    /// its transaction commit after the 503: found by an audit, with a role's 20 s), and keeps a shorter one.
    @Test(arguments: [("", "9s"), ("?options=-c%20statement_timeout%3D20000", "9s"),
                      ("?options=-c%20statement_timeout%3D3000", "3s")])
    func theServersStatementTimeoutIsTheShorterOfOursAndTheOperators(_ options: String, _ expected: String) async throws {
        let url = try PostgresURL(try await PostgresCluster.sharedCluster().newDatabase() + options)
        let pool = try PostgresPool(url: url, size: 1, connectTimeout: .seconds(5 * Sanitizer.timeScale))
        #expect(try await pool.readOne(SQL("SHOW statement_timeout")) { try $0[0] as String } == expected)
    }

    /// A migration runs without the server's `statement_timeout` (an index over a large table takes minutes), for
    /// its own transaction only.
    @Test func aMigrationIsNotBoundByTheServersStatementTimeout() async throws {
        let url = try PostgresURL(try await PostgresCluster.sharedCluster().newDatabase())
        let pool = try PostgresPool(url: url, size: 1, connectTimeout: .seconds(5 * Sanitizer.timeScale),
                                    serverStatementTimeout: .milliseconds(200))
        let slow = SQL("SELECT pg_sleep(0.4)")
        let refused = await #expect(throws: PostgresError.self) { try await pool.write(slow) }
        #expect(refused?.sqlState == "57014")
        let results = try await pool.migrationWrite([SQL("SELECT 1"), slow])
        #expect(results.count == 2, "the lift's own result is not the caller's")
        #expect(try await pool.readOne(SQL("SHOW statement_timeout")) { try $0[0] as String } == "200ms")
    }

    /// Polls `condition` (a query answering one boolean) until it holds, for up to 10 s.
    private static func waitUntil(_ pool: PostgresPool, _ condition: String, _ arguments: [any DatabaseValueConvertible] = [])
        async throws
    {
        for _ in 0..<200 {
            if try await pool.readOne(SQL(condition, arguments), { try $0[0] as Bool }) == true { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("never held: \(condition)")
    }

    @Test func anUnreachableServerNamesHostAndPortAndNeverThePassword() async throws {
        let url = try PostgresURL("postgresql://siwa:s3cret-pw@127.0.0.1:9/siwa?connect_timeout=2")
        #expect(url.description == "127.0.0.1:9/siwa")
        let pool = try PostgresPool(url: url, size: 1)
        let error = await #expect(throws: PostgresError.self) {
            try await pool.waitUntilAvailable(timeout: .milliseconds(300), retryEvery: .milliseconds(100))
        }
        #expect(error?.reason == .unavailable)
        #expect(error?.description.contains("127.0.0.1:9") == true)
        #expect(error?.description.contains("s3cret-pw") == false)
    }

    /// An option value libpq refuses before it tries a server is no reason to wait: the error is not
    /// `.unavailable`, so start-up's 30 s wait ends at the first try.
    @Test(arguments: ["sslmode=bogus", "target_session_attrs=nope", "keepalives=x", "gssencmode=always"])
    func anOptionLibpqRefusesIsReportedAtOnce(query: String) async throws {
        let pool = try PostgresPool(url: try PostgresURL("postgresql://siwa:s3cret-pw@127.0.0.1:9/siwa?\(query)"),
                                    size: 1)
        let error = await #expect(throws: PostgresError.self) {
            try await pool.waitUntilAvailable(timeout: .seconds(60), retryEvery: .milliseconds(100))
        }
        #expect(error?.reason == .misconfigured)
        #expect(error?.message.contains("DATABASE_URL has an option libpq refuses") == true)
        #expect(error?.description.contains("s3cret-pw") == false)
    }

    @Test func statementsArePreparedOncePerConnectionByTextAndParameterTypes() async throws {
        let pool = try await pool(size: 1)
        try await pool.write(SQL("CREATE TABLE p (id bigint PRIMARY KEY, note text)"))
        for id in 0..<4 {
            try await pool.write(SQL("INSERT INTO p VALUES (?, ?)", [id, id == 1 ? String?.none : "n\(id)"]))
        }
        let inserts = try await pool.readOne(
            SQL("SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE 'INSERT INTO p %'")) { try $0[0] as Int }
        #expect(inserts == 2, "one for a text note, one for a null one (its type left to PostgreSQL)")
        let error = await #expect(throws: PostgresError.self) { try await pool.write(SQL("SELEC 1")) }
        #expect(error?.sqlState == "42601")
        #expect(try await pool.readOne(SQL("SELECT count(*) FROM p")) { try $0[0] as Int } == 4)
    }
}
