import TestSupport
import Testing
@testable import CryptoCore

struct ConstantTimeTests {
    @Test func comparesContentAndLength() {
        #expect(constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(!constantTimeEquals([1, 2, 3], [1, 2, 4]))
        #expect(!constantTimeEquals([1, 2, 3], [1, 2]))
        #expect(!constantTimeEquals([], [0]))
        #expect(constantTimeEquals([], []))
        #expect(constantTimeEquals("nonce", "nonce"))
        #expect(!constantTimeEquals("nonce", "Nonce"))
    }
}
