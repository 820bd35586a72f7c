import Foundation
import IOCore
import Synchronization
import Testing
import TestSupport
@testable import Storage

/// A host name in `DATABASE_URL` is looked up on a worker thread, never on the event loop that serves HTTP, and the
/// connection gets the address as `hostaddr`. Found by a review: libpq's own `getaddrinfo` in `PQconnectStart`
/// froze the loop, `/health` included, for as long as a silent resolver took (3 to 15 s).
@Suite(.postgres, .serialized, .timeLimit(.minutes(2)))
struct PostgresHostLookupTests {
    @Test(arguments: [
        (["host": "db.example.com"], true), (["host": "db.example.com", "hostaddr": "10.0.0.1"], false),
        (["host": "127.0.0.1"], false), (["host": "::1"], false), (["host": "/run/postgresql"], false),
        (["host": "@abstract"], false), ([:], false), (["host": ""], false),
    ])
    func onlyANameWithoutAnAddressIsLookedUp(_ parameters: [String: String], _ looked: Bool) {
        #expect(PostgresHostLookup.needsLookup(parameters) == looked)
    }

    /// A lookup that takes two seconds: the loop the connection runs on fires a 50 ms timer meanwhile, and the
    /// connection is made to the address the lookup gave.
    @Test func aSlowLookupLeavesTheLoopFreeAndItsAddressIsUsed() async throws {
        let cluster = try await PostgresCluster.sharedCluster()
        let database = String(try await cluster.newDatabase().split(separator: "/").last ?? "")
        let url = try PostgresURL("postgres://postgres@db.invalid:\(cluster.port)/\(database)")
        let asked = Mutex<[String]>([])
        let lookup = PostgresHostLookup { host, port in
            asked.withLock { $0.append("\(host):\(port)") }
            Thread.sleep(forTimeInterval: 2)
            return ["127.0.0.1"]
        }
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.next()
        let connecting = Task { try await PGConnection.connect(url, loop: loop, timeout: .seconds(30), lookup: lookup) }
        let started = ContinuousClock.now
        let fired = await withCheckedContinuation { continuation in
            _ = loop.schedule(at: MonotonicClock.deadline(after: .milliseconds(50))) {
                continuation.resume(returning: ContinuousClock.now - started)
            }
        }
        #expect(fired < .milliseconds(1500), "the loop's timer waited for the lookup: \(fired)")
        let connection = try await connecting.value
        #expect(asked.withLock { $0 } == ["db.invalid:\(cluster.port)"])
        _ = connection
    }

    /// A lookup that outlasts the connection's time ends the attempt within that time, naming the host.
    @Test func aLookupPastTheTimeLeftIsUnavailable() async throws {
        let url = try PostgresURL("postgres://postgres@db.invalid:5432/x")
        let lookup = PostgresHostLookup { _, _ in
            Thread.sleep(forTimeInterval: 3)
            return ["127.0.0.1"]
        }
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let started = ContinuousClock.now
        let error = await #expect(throws: PostgresError.self) {
            _ = try await PGConnection.connect(url, loop: group.next(), timeout: .milliseconds(300), lookup: lookup)
        }
        #expect(error?.reason == .unavailable)
        #expect(error?.message.contains("db.invalid:5432") == true, "\(error?.message ?? "")")
        #expect(ContinuousClock.now - started < .milliseconds(2500))
    }

    /// The system's lookup: `localhost` to its addresses, and a name that does not resolve to an error naming it.
    @Test func theSystemLookupGivesNumericAddresses() throws {
        let addresses = try PostgresHostLookup.system("localhost", "5432")
        #expect(!addresses.isEmpty)
        #expect(addresses.allSatisfy { $0 == "127.0.0.1" || $0 == "::1" || $0.hasPrefix("127.") })
        #expect(throws: PostgresError.self) { try PostgresHostLookup.system("no-such-host.invalid", "5432") }
    }
}
