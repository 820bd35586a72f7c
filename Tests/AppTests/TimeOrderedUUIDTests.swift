import Foundation
import Testing
@testable import App

/// `UUID.timeOrdered()`: RFC 9562 version 7 layout, time prefix, order across milliseconds, uniqueness.
struct TimeOrderedUUIDTests {
    @Test func hasVersion7AndTheRFCVariant() {
        let id = UUID.timeOrdered()
        #expect(id.uuid.6 >> 4 == 7)
        #expect(id.uuid.8 >> 6 == 0b10)
    }

    @Test func startsWithTheUnixTimeInMilliseconds() {
        let id = UUID.timeOrdered(now: Date(timeIntervalSince1970: 1_700_000_000.5))
        #expect(id.uuidString.hasPrefix("018BCFE5-69F4"))
    }

    @Test func laterIdsSortAfterEarlierOnes() {
        let earlier = UUID.timeOrdered(now: Date(timeIntervalSince1970: 1_700_000_000))
        let later = UUID.timeOrdered(now: Date(timeIntervalSince1970: 1_700_000_000.001))
        #expect(earlier.uuidString < later.uuidString)
    }

    @Test func idsInTheSameMillisecondDiffer() {
        let now = Date()
        let ids = Set((0..<1000).map { _ in UUID.timeOrdered(now: now) })
        #expect(ids.count == 1000)
    }

    @Test func givenRandomBytesFillEverythingButTimeVersionAndVariant() {
        let random = ArraySlice([UInt8](repeating: 0xFF, count: 16))
        let id = UUID.timeOrdered(now: Date(timeIntervalSince1970: 1_700_000_000.5), random: random)
        #expect(id.uuidString == "018BCFE5-69F4-7FFF-BFFF-FFFFFFFFFFFF")
    }
}
