import Testing
@testable import HTTPCore

/// The pool's rules without sockets.
struct HTTPConnectionPoolStateTests {
    @Test func opensUpToTheBoundThenQueuesInOrder() {
        var pool = HTTPConnectionPoolState(maxConnections: 2)
        #expect(pool.lease(1) == .connect)
        #expect(pool.lease(2) == .connect)
        #expect(pool.lease(3) == .wait)
        #expect(pool.lease(4) == .wait)
        pool.connected(10)
        pool.connected(11)
        #expect(pool.open == 2)
        #expect(pool.release(10, reusable: true, now: 0, loop: 0) == .handOver(10, to: 3))
        #expect(pool.release(11, reusable: false, now: 0, loop: 0) == .connect(for: 4))
        #expect(pool.open == 2)
        #expect(pool.waiting.isEmpty)
    }

    @Test func reusesTheMostRecentlyIdleConnectionFirst() {
        var pool = HTTPConnectionPoolState(maxConnections: 4)
        #expect(pool.lease(1) == .connect)
        #expect(pool.lease(2) == .connect)
        pool.connected(10)
        pool.connected(11)
        #expect(pool.release(10, reusable: true, now: 1, loop: 0) == .none)
        #expect(pool.release(11, reusable: true, now: 2, loop: 0) == .none)
        #expect(pool.lease(3) == .use(11))
    }

    @Test func anIdleConnectionOnTheRequestersLoopComesFirstThenTheMostRecentOfAll() {
        var pool = HTTPConnectionPoolState(maxConnections: 3)
        for request in 1...3 { #expect(pool.lease(request, on: 0) == .connect) }
        for id in [10, 11, 12] { pool.connected(id) }
        #expect(pool.release(10, reusable: true, now: 1, loop: 0) == .none)
        #expect(pool.release(11, reusable: true, now: 2, loop: 1) == .none)
        #expect(pool.release(12, reusable: true, now: 3, loop: 0) == .none)
        #expect(pool.lease(4, on: 1) == .use(11), "the only one on loop 1, though not the most recent")
        #expect(pool.lease(5, on: 0) == .use(12), "the most recent of the two on loop 0")
        #expect(pool.lease(6, on: 1) == .use(10), "none left on loop 1: the most recent of all")
        #expect(pool.lease(7, on: 1) == .wait)
        #expect(pool.idle.isEmpty)
    }

    @Test func aRequestOffThePoolsLoopsTakesTheMostRecentOfAll() {
        var pool = HTTPConnectionPoolState(maxConnections: 2)
        for request in 1...2 { #expect(pool.lease(request) == .connect) }
        pool.connected(10)
        pool.connected(11)
        #expect(pool.release(10, reusable: true, now: 1, loop: 1) == .none)
        #expect(pool.release(11, reusable: true, now: 2, loop: 0) == .none)
        #expect(pool.lease(3) == .use(11))
        #expect(pool.lease(4, on: 5) == .use(10), "a loop with no idle connection")
    }

    @Test func aNewRequestDoesNotOvertakeWaitingOnes() {
        var pool = HTTPConnectionPoolState(maxConnections: 1)
        #expect(pool.lease(1) == .connect)
        #expect(pool.lease(2) == .wait)
        #expect(pool.connectFailed() == .connect(for: 2))
        #expect(pool.lease(3) == .wait, "the slot went to request 2, which opens it")
        let cancelled = pool.cancelWaiting(3)
        let cancelledAgain = pool.cancelWaiting(3)
        #expect(cancelled)
        #expect(!cancelledAgain)
    }

    @Test func idleConnectionsExpireAtTheirTimeout() {
        var pool = HTTPConnectionPoolState(maxConnections: 3)
        for request in 1...3 { #expect(pool.lease(request) == .connect) }
        for id in 10...12 { pool.connected(id) }
        _ = pool.release(10, reusable: true, now: 100, loop: 0)
        _ = pool.release(11, reusable: true, now: 200, loop: 0)
        _ = pool.release(12, reusable: true, now: 300, loop: 0)
        let first = pool.expireIdle(now: 1_199, idleTimeout: 1_000)
        let second = pool.expireIdle(now: 1_200, idleTimeout: 1_000)
        #expect(first == [10])
        #expect(second == [11])
        #expect(pool.open == 1)
    }

    /// A sweep's `now` may be older than a connection's stamp: the loop reads the clock, then another thread gives a
    /// connection back before the sweep takes the lock. That connection has just become idle. Found by a flaky pool
    /// test: the wrapping difference expired it at once (no idle connection left after 20 requests, or a second
    /// connection opened where one served all).
    @Test func aConnectionGivenBackAfterTheSweepReadTheClockIsNotExpired() {
        var pool = HTTPConnectionPoolState(maxConnections: 1)
        #expect(pool.lease(1) == .connect)
        pool.connected(10)
        _ = pool.release(10, reusable: true, now: 5_000, loop: 0)
        #expect(pool.expireIdle(now: 4_999, idleTimeout: 1_000).isEmpty)
        #expect(pool.idle.count == 1)
        #expect(pool.expireIdle(now: 6_000, idleTimeout: 1_000) == [10])
    }

    @Test func onlyConnectionsStillIdleAreRemovedAsClosedByTheServer() {
        var pool = HTTPConnectionPoolState(maxConnections: 3)
        for request in 1...3 { #expect(pool.lease(request) == .connect) }
        for id in 10...12 { pool.connected(id) }
        _ = pool.release(10, reusable: true, now: 100, loop: 0)
        _ = pool.release(11, reusable: true, now: 200, loop: 0)
        #expect(pool.removeIdle([10, 12]) == [10], "12 is leased: its request finds out for itself")
        #expect(pool.open == 2)
        #expect(pool.lease(4) == .use(11))
    }

    @Test func aStaleLeasedConnectionIsReplacedInItsSlot() {
        var pool = HTTPConnectionPoolState(maxConnections: 1)
        #expect(pool.lease(1) == .connect)
        pool.connected(10)
        _ = pool.release(10, reusable: true, now: 0, loop: 0)
        #expect(pool.lease(2) == .use(10))
        pool.replaceLeased(10)
        #expect(pool.open == 1, "the request opens a new connection in the same slot")
        #expect(pool.lease(3) == .wait)
    }
}
