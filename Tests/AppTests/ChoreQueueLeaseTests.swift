import Foundation
import Testing
@testable import App

/// A claimed batch keeps its lease while its run is held back (a long throttle), and a lapsed lease is never taken
/// back from the run that claimed the rows after it. On SQLite and, in the suite's PostgreSQL pass, on PostgreSQL.
@Suite(.serialized)
struct ChoreQueueLeaseTests {
    @Test func aLeaseIsRenewedPastItsHalfAndALapsedOneIsLeftToTheNextClaim() async throws {
        try await TestApp.with { app in
            try await app.seedAppleTokens(3)
            let queue = ChoreQueue.appleTokens(app.server.services.database)
            let start = Date().addingTimeInterval(60)
            var items = try await queue.claim(limit: 3, dueBefore: start, leaseEnd: start.addingTimeInterval(ChoreQueue.lease))
            #expect(items.count == 3)
            #expect(try await queue.claim(limit: 3, dueBefore: start, leaseEnd: start).isEmpty)

            // Less than half the lease gone: nothing to do, the lease stands.
            let early = start.addingTimeInterval(ChoreQueue.lease / 2 - 1)
            #expect(try await queue.hold(&items[0], now: early))
            #expect(items[0].leaseEnd == start.addingTimeInterval(ChoreQueue.lease))

            // Past half: renewed for a whole lease from now, in the database too.
            let late = start.addingTimeInterval(ChoreQueue.lease / 2)
            #expect(try await queue.hold(&items[0], now: late))
            #expect(items[0].leaseEnd == late.addingTimeInterval(ChoreQueue.lease))

            // The two rows not renewed lapse; a later run claims them, and the first run may not hold them again.
            let lapsed = start.addingTimeInterval(ChoreQueue.lease + 1)
            let taken = try await queue.claim(limit: 3, dueBefore: lapsed,
                                              leaseEnd: lapsed.addingTimeInterval(ChoreQueue.lease))
            #expect(Set(taken.map(\.id)) == Set(items[1...].map(\.id)))
            #expect(try await !queue.hold(&items[1], now: lapsed))
            #expect(try await !queue.hold(&items[2], now: start.addingTimeInterval(ChoreQueue.lease)))

            // The renewed row is still this run's: past the first lease's end, no other claim takes it.
            #expect(try await queue.claim(limit: 3, dueBefore: lapsed, leaseEnd: lapsed).isEmpty)
            #expect(try await queue.hold(&items[0], now: lapsed))
        }
    }
}
