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
}
