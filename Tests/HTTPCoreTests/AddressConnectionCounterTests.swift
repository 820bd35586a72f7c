import Logging
import Synchronization
import Testing
@testable import HTTPCore

struct AddressConnectionCounterTests {
    static let client = AddressPrefix(parsing: "203.0.113.7")

    @Test func admitsNRefusesNPlusOneAndReleasesExactlyOnce() {
        let counter = AddressConnectionCounter(limit: 2, exemptLoopback: true)
        #expect(counter.admit(Self.client) == .counted(Self.client))
        #expect(counter.admit(Self.client) == .counted(Self.client))
        #expect(counter.admit(Self.client) == .refused(Self.client))
        #expect(counter.openConnections(from: Self.client) == 2)
        counter.release(Self.client)
        #expect(counter.admit(Self.client) == .counted(Self.client))
        counter.release(Self.client)
        counter.release(Self.client)
        #expect(counter.trackedAddresses == 0)
        counter.release(Self.client)  // an extra release never goes below zero
        #expect(counter.openConnections(from: Self.client) == 0)
    }

    @Test func ipv6CountsPerSlash64() {
        let counter = AddressConnectionCounter(limit: 1, exemptLoopback: true)
        let first = AddressPrefix(parsing: "2001:db8:1:1::1"), sibling = AddressPrefix(parsing: "2001:db8:1:1::2")
        #expect(counter.admit(first) == .counted(first))
        #expect(counter.admit(sibling) == .refused(sibling))
        #expect(counter.admit(AddressPrefix(parsing: "2001:db8:1:2::1")) != .refused(AddressPrefix(parsing: "2001:db8:1:2::1")))
    }

    @Test func loopbackIsExemptUnlessTurnedOff() {
        let loopback = AddressPrefix(parsing: "127.0.0.1")
        let exempt = AddressConnectionCounter(limit: 1, exemptLoopback: true)
        for _ in 0..<3 { #expect(exempt.admit(loopback) == .uncounted) }
        let counted = AddressConnectionCounter(limit: 1, exemptLoopback: false)
        #expect(counted.admit(loopback) == .counted(loopback))
        #expect(counted.admit(loopback) == .refused(loopback))
        #expect(AddressConnectionCounter(limit: 0, exemptLoopback: false).admit(Self.client) == .uncounted)
        #expect(counted.admit(nil) == .uncounted)
    }

    @Test func refusalsAreLoggedAtMostOncePerInterval() {
        let time = Mutex<UInt64>(1)
        let counter = AddressConnectionCounter(limit: 1, exemptLoopback: true, now: { time.withLock { $0 } })
        let handler = CapturingLogHandler()
        handler.logLevel = .debug
        let logger = Logger(label: "test") { _ in handler }
        for _ in 0..<5 { counter.logRefusal(of: Self.client, logger: logger) }
        time.withLock { $0 += AddressConnectionCounter.refusalLogInterval }
        counter.logRefusal(of: Self.client, logger: logger)
        let lines = handler.lines.withLock { $0 }
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { $0.hasPrefix("notice connection refused: too many open from one address") })
    }
}
