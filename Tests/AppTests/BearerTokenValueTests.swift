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
        let valid = BearerTokenValue.text(id: .timeOrdered(),
                                          secret: [UInt8](repeating: 1, count: BearerTokenValue.secretBytes))
        #expect(BearerTokenValue(valid).id != nil)
        for text in [String(valid.dropLast()), valid + "A", String(valid.dropLast()) + "=",
                     String(valid.dropLast()) + "+", "", String(repeating: "é", count: 22)] {
            let value = BearerTokenValue(text)
            #expect(value.id == nil, "\(text)")
            #expect(value.hash == SHA256.hash(text))
        }
    }

    /// The contract's form: 32 bytes, base64url. A legacy value (32 random bytes) has the same length; it names an
    /// id only when its first bytes read as a version-7 UUID, and is then still found by its hash.
    @Test func aValueIs32BytesAndNamesAnIdOnlyWhenItsFirstBytesAreAVersion7UUID() {
        #expect(BearerTokenValue.idBytes + BearerTokenValue.secretBytes == 32)
        #expect(BearerTokenValue.length == Base64URL.encode([UInt8](repeating: 0, count: 32)).utf8.count)
        let version4 = BearerTokenValue.text(id: UUID(), secret: [UInt8](repeating: 1, count: BearerTokenValue.secretBytes))
        #expect(version4.utf8.count == BearerTokenValue.length)
        #expect(BearerTokenValue(version4).id == nil)
        var wrongVariant = [UInt8](repeating: 0x77, count: 32)
        wrongVariant[8] = 0xC0
        #expect(BearerTokenValue(Base64URL.encode(wrongVariant)).id == nil)
        wrongVariant[8] = 0x80
        #expect(BearerTokenValue(Base64URL.encode(wrongVariant)).id != nil)
    }
}
