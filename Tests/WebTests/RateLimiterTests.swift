import HTTPCore
import Synchronization
import Testing
@testable import Web

/// A clock tests move by hand: monotonic nanoseconds.
final class ManualClock: Sendable {
    private let nanoseconds = Mutex<UInt64>(1_000_000_000)
    var now: @Sendable () -> UInt64 { { self.nanoseconds.withLock { $0 } } }
    func advance(seconds: Double) { nanoseconds.withLock { $0 += UInt64(seconds * 1_000_000_000) } }
}

struct RateLimiterTests {
    static let client = AddressPrefix(parsing: "203.0.113.7")

    @Test func burstIsAllowedAndTheNextIsRefused() {
        let clock = ManualClock()
        let limiter = RateLimiter(perMinute: 60, burst: 5, now: clock.now)
        for _ in 0..<5 { #expect(limiter.acquire(Self.client) == nil) }
        #expect(limiter.acquire(Self.client) == 1)
        #expect(limiter.acquire(AddressPrefix(parsing: "203.0.113.8")) == nil)
    }

    @Test func refillsAtTheSustainedRate() {
        let clock = ManualClock()
        let limiter = RateLimiter(perMinute: 6, burst: 1, now: clock.now)  // one token every 10 s
        #expect(limiter.acquire(Self.client) == nil)
        #expect(limiter.acquire(Self.client) == 10)
        clock.advance(seconds: 9.5)
        #expect(limiter.acquire(Self.client) == 1)  // half a second left, rounded up to a whole second
        clock.advance(seconds: 0.5)
        #expect(limiter.acquire(Self.client) == nil)
        #expect(limiter.acquire(Self.client) == 10)
        clock.advance(seconds: 3600)
        #expect(limiter.acquire(Self.client) == nil)
        #expect(limiter.acquire(Self.client) != nil)  // a long quiet spell earns `burst` tokens, no more
    }

    @Test func refusedRequestsDoNotPushTheWaitFurther() {
        let clock = ManualClock()
        let limiter = RateLimiter(perMinute: 60, burst: 1, now: clock.now)
        #expect(limiter.acquire(Self.client) == nil)
        for _ in 0..<100 { #expect(limiter.acquire(Self.client) == 1) }
        clock.advance(seconds: 1)
        #expect(limiter.acquire(Self.client) == nil)
    }

    @Test func ipv6AddressesShareTheirSlash64() {
        let clock = ManualClock()
        let limiter = RateLimiter(perMinute: 60, burst: 2, now: clock.now)
        #expect(limiter.acquire(AddressPrefix(parsing: "2001:db8:1:2::1")) == nil)
        #expect(limiter.acquire(AddressPrefix(parsing: "2001:db8:1:2:ffff::9")) == nil)
        #expect(limiter.acquire(AddressPrefix(parsing: "[2001:db8:1:2::abcd]:443")) != nil)
        #expect(limiter.acquire(AddressPrefix(parsing: "2001:db8:1:3::1")) == nil)
    }

    @Test func atTheBoundaryFullBucketsAreDroppedFirst() {
        let clock = ManualClock()
        let limiter = RateLimiter(perMinute: 60, burst: 2, maxTrackedAddresses: 4, now: clock.now)
        #expect(limiter.evictionBatch == 1)
        let addresses = (1...5).map { AddressPrefix(parsing: "198.51.100.\($0)") }
        #expect(limiter.acquire(addresses[0]) == nil)  // the oldest, refills in 1 s
        clock.advance(seconds: 0.5)
        for address in addresses[1...3] {
            #expect(limiter.acquire(address) == nil)
            #expect(limiter.acquire(address) == nil)  // drained
        }
        #expect(limiter.trackedAddresses == 4)  // N tracked
        clock.advance(seconds: 0.6)  // the first is full again; the drained three are not
        #expect(limiter.acquire(addresses[4]) == nil)  // N + 1: the full one goes
        #expect(limiter.trackedAddresses == 4)
        #expect(!limiter.isTracking(addresses[0]))
        for address in addresses[1...3] { #expect(limiter.acquire(address) != nil) }  // still limited
    }

    @Test func atTheBoundaryTheLeastRecentlyUsedGoesWhenNoneIsFull() {
        let clock = ManualClock()
        let limiter = RateLimiter(perMinute: 1, burst: 1, maxTrackedAddresses: 3, now: clock.now)
        let addresses = (1...4).map { AddressPrefix(parsing: "192.0.2.\($0)") }
        for address in addresses[0...2] {
            #expect(limiter.acquire(address) == nil)
            clock.advance(seconds: 1)
        }
        #expect(limiter.acquire(addresses[0]) != nil)  // used again: now the most recent
        #expect(limiter.trackedAddresses == 3)
        #expect(limiter.acquire(addresses[3]) == nil)
        #expect(limiter.trackedAddresses == 3)
        #expect(!limiter.isTracking(addresses[1]))
        #expect(limiter.isTracking(addresses[0]) && limiter.isTracking(addresses[2]) && limiter.isTracking(addresses[3]))
    }

    @Test func aLargeTableEvictsInBatches() {
        let clock = ManualClock()
        let limiter = RateLimiter(perMinute: 1, burst: 1, maxTrackedAddresses: 1_600, now: clock.now)
        for i in 0..<1_600 {
            #expect(limiter.acquire(.ipv4(UInt32(i))) == nil)
            clock.advance(seconds: 0.001)
        }
        #expect(limiter.trackedAddresses == 1_600)
        #expect(limiter.evictionBatch == 100)
        #expect(limiter.acquire(.ipv4(1_000_000)) == nil)
        #expect(limiter.trackedAddresses == 1_501)
        #expect(!limiter.isTracking(.ipv4(0)) && !limiter.isTracking(.ipv4(99)))
        #expect(limiter.isTracking(.ipv4(100)) && limiter.isTracking(.ipv4(1_599)))
    }
}
