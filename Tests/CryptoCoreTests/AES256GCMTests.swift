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
}
