import TestSupport
import Testing
@testable import CryptoCore

struct ES256KeyTests {
    @Test func loadsP8AndRoundTripsSignature() throws {
        let key = try ES256PrivateKey(pem: ES256PrivateKey.fixturePEM)
        let message = Array("client-secret-input".utf8)
        let signature = try key.signature(for: message)
        #expect(signature.count == 64)
        let publicKey = try key.publicKey
        #expect(publicKey.x.count == 32 && publicKey.y.count == 32)
        #expect(publicKey.isValidSignature(signature, for: message))
        #expect(!publicKey.isValidSignature(signature, for: message + [0]))
        let der = try #require(ECDSASignature.der(fromRaw: signature))
        #expect(publicKey.isValidDERSignature(der, for: message))
        #expect(ECDSASignature.raw(fromDER: der) == signature)
    }

    @Test func generateAndPEMRoundTrip() throws {
        let key = try ES256PrivateKey.generate()
        let pem = try key.pemRepresentation()
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let reloaded = try ES256PrivateKey(pem: pem)
        #expect(try reloaded.publicKey.x == key.publicKey.x)
        let publicPEM = try key.publicKey.pemRepresentation()
        #expect(try ES256PublicKey(pem: publicPEM).y == key.publicKey.y)
    }

    @Test func refusesOtherCurvesAndTypes() {
        #expect(throws: CryptoKeyError(.wrongKeyType)) { try ES256PrivateKey(pem: ES256PrivateKey.p384FixturePEM) }
        #expect(throws: CryptoKeyError(.wrongKeyType)) { try ES256PrivateKey(pem: RSAPrivateKey.fixturePEM) }
    }

    @Test func refusesPointOffCurve() throws {
        let key = try ES256PrivateKey(pem: ES256PrivateKey.fixturePEM).publicKey
        var y = key.y
        y[31] ^= 1
        #expect(throws: CryptoKeyError(.invalidPoint)) { try ES256PublicKey(x: key.x, y: y) }
        #expect(throws: CryptoKeyError(.invalidPoint)) { try ES256PublicKey(x: key.x + [0], y: key.y) }
        #expect(throws: CryptoKeyError(.invalidPoint)) { try ES256PublicKey(x: Array(key.x.dropFirst()), y: key.y) }
    }

    @Test func rawSignatureScalarsMustBeInRange() throws {
        let n = ECDSASignature.groupOrder
        let one = [UInt8](repeating: 0, count: 31) + [1]
        let zero = [UInt8](repeating: 0, count: 32)
        var nMinusOne = n
        nMinusOne[31] -= 1
        #expect(ECDSASignature.der(fromRaw: one + one) != nil)
        #expect(ECDSASignature.der(fromRaw: nMinusOne + nMinusOne) != nil)
        #expect(ECDSASignature.der(fromRaw: zero + one) == nil)
        #expect(ECDSASignature.der(fromRaw: one + zero) == nil)
        #expect(ECDSASignature.der(fromRaw: n + one) == nil)
        #expect(ECDSASignature.der(fromRaw: one + n) == nil)
        #expect(ECDSASignature.der(fromRaw: one + one + [0]) == nil)
        #expect(ECDSASignature.der(fromRaw: Array((one + one).dropFirst())) == nil)
    }

    @Test func verificationRefusesWrongLengthSignature() throws {
        let key = try ES256PrivateKey(pem: ES256PrivateKey.fixturePEM)
        let signature = try key.signature(for: [1])
        #expect(!(try key.publicKey.isValidSignature(signature + [0], for: [1])))
        #expect(!(try key.publicKey.isValidSignature([0] + signature.dropLast(), for: [1])))
    }
}
