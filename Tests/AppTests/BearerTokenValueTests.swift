import CryptoCore
import Foundation
import JOSE
import Testing
@testable import App

struct BearerTokenValueTests {
    @Test func aValueCarriesItsIdAndIsHashedWhole() throws {
        let id = UUID.timeOrdered()
        let text = BearerTokenValue.text(id: id, secret: [UInt8](repeating: 0xAB, count: BearerTokenValue.secretBytes))
        #expect(text.utf8.count == BearerTokenValue.length)
        #expect(text.utf8.allSatisfy { $0 == 0x2D || $0 == 0x5F || (0x30...0x39).contains($0)
            || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) })
        let value = BearerTokenValue(text)
        #expect(value.id == id)
        #expect(value.hash == SHA256.hash(text))
    }

    @Test func valuesOfOtherLengthsOrNotBase64URLNameNoId() {
        let valid = BearerTokenValue.text(id: UUID(), secret: [UInt8](repeating: 1, count: BearerTokenValue.secretBytes))
        let legacy = Base64URL.encode([UInt8](repeating: 1, count: BearerTokenValue.secretBytes))
        #expect(legacy.utf8.count == BearerTokenValue.legacyLength)
        for text in [legacy, String(valid.dropLast()), valid + "A", String(valid.dropLast()) + "=",
                     String(valid.dropLast()) + "+", "", String(repeating: "é", count: 32)] {
            let value = BearerTokenValue(text)
            #expect(value.id == nil, "\(text)")
            #expect(value.hash == SHA256.hash(text))
        }
    }
}
