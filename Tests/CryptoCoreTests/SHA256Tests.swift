import TestSupport
import Testing
@testable import CryptoCore

struct SHA256Tests {
    @Test func emptyInputMatchesFIPS180Example() {
        #expect(SHA256.hexHash([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func abcMatchesFIPS180Example() {
        #expect(SHA256.hexHash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hash("abc").count == 32)
    }
}
