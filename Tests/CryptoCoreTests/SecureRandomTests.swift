import Foundation
import TestSupport
import Testing
@testable import CryptoCore

struct SecureRandomTests {
    @Test func returnsRequestedCountAndVaries() throws {
        let a = try SecureRandom.bytes(count: 32), b = try SecureRandom.bytes(count: 32)
        #expect(a.count == 32 && b.count == 32)
        #expect(a != b)
        #expect(try SecureRandom.bytes(count: 0).isEmpty)
    }

    /// Draws at and past the reserve's limit, and enough of them to refill it several times.
    @Test func drawsOfEverySizeAcrossRefillsNeverRepeat() throws {
        var seen = Set<[UInt8]>()
        let refills = 4 * RandomReserve.capacity / 32
        for _ in 0..<refills { #expect(seen.insert(try SecureRandom.bytes(count: 32)).inserted) }
        for count in 1...(SecureRandom.maxReservedDraw + 1) {
            #expect(try SecureRandom.bytes(count: count).count == count)
        }
        #expect(try SecureRandom.bytes(count: 4096).count == 4096)
    }

    @Test func bytesHandedOutAreWipedFromTheReserve() throws {
        let reserve = try #require(RandomReserve.shared)
        _ = try SecureRandom.bytes(count: 48)
        let state = reserve.inspect()
        #expect(state.unused >= 0 && state.unused <= RandomReserve.capacity - 48)
        #expect(state.handedOut.allSatisfy { $0 == 0 })
    }

    /// A forked child must not hand out the parent's bytes: the kernel zeroes the page in the child
    /// (`VmFlags: wf` in proc(5)'s smaps), which the reserve reads as empty.
    @Test func theReserveIsWipedInAForkedChild() throws {
        let reserve = try #require(RandomReserve.shared)
        let address = reserve.inspect().address
        // Read to the end: proc files report a size of 0, which a one-shot read takes at its word.
        let file = try #require(FileHandle(forReadingAtPath: "/proc/self/smaps"))
        let smaps = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        var inMapping = false
        var flags: [Substring]?
        for line in smaps.split(separator: "\n") {
            if let range = line.split(separator: " ").first, range.contains("-"),
               let dash = range.firstIndex(of: "-"), let start = UInt(range[..<dash], radix: 16),
               let end = UInt(range[range.index(after: dash)...], radix: 16) {
                inMapping = (start..<end).contains(address)
            } else if inMapping, line.hasPrefix("VmFlags:") {
                flags = line.split(separator: " ").dropFirst().map { $0 }
                break
            }
        }
        #expect(flags?.contains("wf") == true)
    }
}
