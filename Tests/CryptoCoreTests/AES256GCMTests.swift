import TestSupport
import Testing
@testable import CryptoCore

struct AES256GCMTests {
    let key: [UInt8] = (0..<32).map(UInt8.init)
    let aad = Array("user:42".utf8)

    @Test func roundTrip() throws {
        let plaintext = Array("apple refresh token".utf8)
        let box = try AES256GCM.seal(plaintext, key: key, associatedData: aad)
        #expect(box.count == 12 + plaintext.count + 16)
        #expect(try AES256GCM.open(box, key: key, associatedData: aad) == plaintext)
    }

    @Test func emptyPlaintextRoundTrip() throws {
        let box = try AES256GCM.seal([], key: key)
        #expect(box.count == 28)
        #expect(try AES256GCM.open(box, key: key).isEmpty)
    }

    @Test func freshNonceEachSeal() throws {
        let a = try AES256GCM.seal([1, 2, 3], key: key), b = try AES256GCM.seal([1, 2, 3], key: key)
        #expect(a.prefix(12) != b.prefix(12))
        #expect(a != b)
    }

    @Test func detectsTamperingAnywhere() throws {
        let box = try AES256GCM.seal(Array("secret".utf8), key: key, associatedData: aad)
        for index in [0, 11, 12, box.count - 17, box.count - 16, box.count - 1] {
            var tampered = box
            tampered[index] ^= 0x01
            #expect(throws: AEADError(.authenticationFailed)) {
                try AES256GCM.open(tampered, key: key, associatedData: aad)
            }
        }
    }

    @Test func detectsWrongKeyOrAssociatedData() throws {
        let box = try AES256GCM.seal(Array("secret".utf8), key: key, associatedData: aad)
        var otherKey = key
        otherKey[0] ^= 1
        #expect(throws: AEADError(.authenticationFailed)) { try AES256GCM.open(box, key: otherKey, associatedData: aad) }
        #expect(throws: AEADError(.authenticationFailed)) { try AES256GCM.open(box, key: key, associatedData: []) }
    }

    @Test func refusesBadKeySizeAndTruncation() throws {
        #expect(throws: AEADError(.invalidKeySize)) { try AES256GCM.seal([1], key: Array(key.dropLast())) }
        #expect(throws: AEADError(.truncated)) { try AES256GCM.open([UInt8](repeating: 0, count: 27), key: key) }
        #expect(throws: AEADError(.authenticationFailed)) { try AES256GCM.open([UInt8](repeating: 0, count: 28), key: key) }
    }

    /// The sealer keeps one key schedule and sets only the nonce per seal: every box it makes, of every length and
    /// from concurrent callers, opens with a context made from scratch, and no nonce repeats.
    @Test func aSealerWithItsKeySetUpOnceMakesBoxesThatOpen() async throws {
        let sealer = try AES256GCMSealer(key: key)
        var nonces = Set<[UInt8]>()
        for length in 0..<70 {
            let plaintext = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let box = try sealer.seal(plaintext, associatedData: aad)
            #expect(box.count == 12 + length + 16)
            #expect(try AES256GCM.open(box, key: key, associatedData: aad) == plaintext)
            #expect(nonces.insert(Array(box.prefix(12))).inserted)
        }
        let boxes = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for index in 0..<64 { group.addTask { try sealer.seal([UInt8(index)], associatedData: self.aad) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for box in boxes { #expect(try AES256GCM.open(box, key: key, associatedData: aad).count == 1) }
        #expect(throws: AEADError(.invalidKeySize)) { try AES256GCMSealer(key: Array(key.dropLast())) }
    }
}
