import CryptoCore
import Foundation
import JSON
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

    /// The contract's form: 32 bytes, base64url. The id is masked, so values for neighbouring ids share no prefix,
    /// and the same id with another secret gives other bytes; an id unmasked with the wrong secret names nothing.
    @Test func aValueIs32BytesWithTheIdMaskedBySecret() throws {
        #expect(BearerTokenValue.idBytes + BearerTokenValue.secretBytes == 32)
        let now = Date()
        let first = BearerTokenValue.text(id: .timeOrdered(now: now), secret: [UInt8](repeating: 1, count: 16))
        let second = BearerTokenValue.text(id: .timeOrdered(now: now), secret: [UInt8](repeating: 2, count: 16))
        #expect(first.utf8.count == 43 && second.utf8.count == 43)
        #expect(first.prefix(4) != second.prefix(4), "time-ordered ids would share their first 6 bytes unmasked")
        let id = UUID.timeOrdered(now: now)
        let value = try #require(Base64URL.decode(BearerTokenValue.text(id: id, secret: [UInt8](repeating: 3, count: 16))))
        #expect(Array(value.prefix(16)) != withUnsafeBytes(of: id.uuid) { Array($0) })
        var swapped = value
        swapped.replaceSubrange(16..., with: [UInt8](repeating: 4, count: 16))
        #expect(BearerTokenValue(Base64URL.encode(swapped)).id != id)
    }

    /// A version-4 id (not time-ordered) is not taken for an id: such a value is looked up as a legacy one.
    @Test func onlyVersion7IdsAreTaken() {
        let version4 = BearerTokenValue.text(id: UUID(), secret: [UInt8](repeating: 1, count: BearerTokenValue.secretBytes))
        #expect(version4.utf8.count == BearerTokenValue.length)
        #expect(BearerTokenValue(version4).id == nil)
    }
}
