import Foundation
import Glibc
import Synchronization
import Testing
import TestSupport
@testable import Storage

/// A primary with a synchronous streaming standby, a pool on libpq's multi-host URL with
/// `target_session_attrs=read-write`, the primary stopped hard under writes and the standby promoted: the pool finds
/// the new primary by itself, the gap is `.unavailable` (a 503), never another error, and no acknowledged write is
/// lost.
@Suite(.postgres, .serialized, .timeLimit(.minutes(3)))
struct PostgresFailoverTests {
    /// What the writer saw.
    final class Ledger: Sendable {
        let acknowledged = Mutex<[Int]>([])
        let otherErrors = Mutex<[String]>([])
        let unavailable = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
    }

    /// Found by an audit: libpq enforces `connect_timeout` only when it blocks, so a first host that took the
    /// connection and never answered (a frozen machine) held every attempt for the pool's whole connect time, and the
    /// healthy host after it was never tried. Each host now gets its own time.
    @Test func aFirstHostThatNeverAnswersDoesNotHideTheNextOne() async throws {
        let cluster = try await PostgresCluster.sharedCluster()
        let database = String(try await cluster.newDatabase().split(separator: "/").last ?? "")
        let silent = try SilentListener()
        let url = try PostgresURL("postgres://postgres@127.0.0.1:\(silent.port),127.0.0.1:\(cluster.port)/\(database)"
                                  + "?target_session_attrs=read-write&connect_timeout=2")
        #expect(url.description == "127.0.0.1:\(silent.port),127.0.0.1:\(cluster.port)/\(database)")
        let pool = try PostgresPool(url: url, size: 1, connectTimeout: .seconds(60))
        #expect(try await pool.readOne(SQL("SELECT 1")) { try $0[0] as Int } == 1)

        let alone = try PostgresPool(url: try PostgresURL("postgres://postgres@127.0.0.1:\(silent.port),"
                                                          + "127.0.0.1:\(silent.port)/x?connect_timeout=2"), size: 1)
        let error = await #expect(throws: PostgresError.self) { try await alone.readOne(SQL("SELECT 1")) { _ in 1 } }
        #expect(error?.message.components(separatedBy: "no answer within 2.0 seconds").count == 3,
                "each host named with its own time: \(error?.message ?? "")")
    }

    /// Found by an audit: with a `connect_timeout` as long as the call's `statementTimeout`, a frozen first host took
    /// the whole call and the healthy host after it was never reached. The hosts still to try now share what is left.
    @Test func aConnectTimeoutAsLongAsTheCallStillLeavesTheNextHostItsShare() async throws {
        let cluster = try await PostgresCluster.sharedCluster()
        let database = String(try await cluster.newDatabase().split(separator: "/").last ?? "")
        let silent = try SilentListener()
        let seconds = Int(PostgresPool.statementTimeout.components.seconds)
        let url = try PostgresURL("postgres://postgres@127.0.0.1:\(silent.port),127.0.0.1:\(cluster.port)/\(database)"
                                  + "?target_session_attrs=read-write&connect_timeout=\(seconds)")
        let pool = try PostgresPool(url: url, size: 1, connectTimeout: .seconds(60))
        #expect(try await pool.readOne(SQL("SELECT 1")) { try $0[0] as Int } == 1)
    }

    /// A server that stops answering on an open connection (its backend frozen, as a partition or a frozen machine
    /// would leave it) costs a call `statementTimeout`, then `.unavailable` (a 503); found by an audit at 30 s.
    @Test func aServerThatStopsAnsweringIsUnavailableAfterTheStatementTimeout() async throws {
        let url = try await PostgresCluster.sharedCluster().newDatabase()
        let pool = try PostgresPool(url: try PostgresURL(url), size: 1)
        let backend = try #require(try await pool.readOne(SQL("SELECT pg_backend_pid()::bigint")) { try $0[0] as Int })
        let pid = pid_t(backend)
        #expect(kill(pid, SIGSTOP) == 0)
        defer {
            kill(pid, SIGCONT)
            kill(pid, SIGTERM)
        }
        let started = ContinuousClock.now
        let error = await #expect(throws: PostgresError.self) { try await pool.readOne(SQL("SELECT 1")) { _ in 1 } }
        #expect(error?.reason == .unavailable, "a 503: \(error?.message ?? "")")
        #expect(ContinuousClock.now - started < PostgresPool.statementTimeout * 2, "bounded by the statement timeout")
    }

    @Test func aPromotedStandbyTakesOverAndNoAcknowledgedWriteIsLost() async throws {
        let (primary, standby) = try await PostgresCluster.synchronousPair()
        defer {
            standby.stop()
            primary.stop()
        }
        let database = String(try await primary.newDatabase().split(separator: "/").last ?? "")
        try await primary.waitUntilReplayed(by: standby)

        let failoverURL = "postgres://postgres@127.0.0.1:\(primary.port),127.0.0.1:\(standby.port)/\(database)"
            + "?target_session_attrs=read-write&connect_timeout=2"
        let pool = try PostgresPool(url: try PostgresURL(failoverURL), size: 4,
                                    connectTimeout: .seconds(5 * Sanitizer.timeScale))
        try await pool.write(SQL("CREATE TABLE t (id bigint PRIMARY KEY)"))
        let ledger = Ledger()
        let writer = Task {
            var next = 0
            while !ledger.stop.load(ordering: .relaxed) {
                next += 1
                do {
                    try await pool.write(SQL("INSERT INTO t VALUES (?)", [next]))
                    ledger.acknowledged.withLock { $0.append(next) }
                } catch let error as PostgresError where error.reason == .unavailable {
                    ledger.unavailable.add(1, ordering: .relaxed)
                    try? await Task.sleep(for: .milliseconds(50))
                } catch {
                    ledger.otherErrors.withLock { $0.append("\(error)") }
                }
            }
        }
        while ledger.acknowledged.withLock({ $0.count }) < 50 { try await Task.sleep(for: .milliseconds(20)) }
        try await primary.killServer()
        let killedAt = ledger.acknowledged.withLock { $0.count }
        try await standby.promoteServer()
        let promoted = ContinuousClock.now
        while ledger.acknowledged.withLock({ $0.count }) <= killedAt + 20,
              ContinuousClock.now - promoted < .seconds(30) {
            try await Task.sleep(for: .milliseconds(20))
        }
        let recovered = ContinuousClock.now - promoted
        ledger.stop.store(true, ordering: .relaxed)
        await writer.value

        #expect(recovered < .seconds(10), "writes went on \(recovered) after the promotion")
        #expect(ledger.otherErrors.withLock { $0 }.isEmpty, "\(ledger.otherErrors.withLock { $0.prefix(3) })")
        let acknowledged = Set(ledger.acknowledged.withLock { $0 })
        let stored = Set(try await pool.read(SQL("SELECT id FROM t")) { try $0[0] as Int })
        #expect(acknowledged.isSubset(of: stored), "lost: \(acknowledged.subtracting(stored).sorted().prefix(5))")
        #expect(acknowledged.count > killedAt)
    }
}
