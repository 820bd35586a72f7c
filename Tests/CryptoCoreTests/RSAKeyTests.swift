import TestSupport
import Testing
@testable import CryptoCore

struct RSAKeyTests {
    @Test func signatureRoundTrip() throws {
        let key = RSAPrivateKey.fixture
        let message = Array("header.payload".utf8)
        let signature = try key.signature(for: message)
        #expect(signature.count == 256)
        let publicKey = try key.publicKey
        #expect(publicKey.modulusBits == 2048)
        #expect(publicKey.exponent == [0x01, 0x00, 0x01])
        #expect(publicKey.isValidSignature(signature, for: message))
        #expect(!publicKey.isValidSignature(signature, for: Array("header.payloaD".utf8)))
        var tampered = signature
        tampered[100] ^= 1
        #expect(!publicKey.isValidSignature(tampered, for: message))
        #expect(!publicKey.isValidSignature(Array(signature.dropLast()), for: message))
        #expect(!publicKey.isValidSignature([0] + signature, for: message))
    }

    /// One key object, many tasks at once: each verification works on its own context.
    @Test func oneKeyVerifiesConcurrently() async throws {
        let key = RSAPrivateKey.fixture
        let publicKey = try key.publicKey
        let message = Array("concurrent".utf8)
        let signature = try key.signature(for: message)
        let results = await withTaskGroup(of: Bool.self) { group in
            for task in 0..<8 {
                group.addTask {
                    (0..<50).allSatisfy { round in
                        publicKey.isValidSignature(signature, for: message)
                            && !publicKey.isValidSignature(signature, for: message + [UInt8(task), UInt8(round)])
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: 8))
    }

    @Test func pemRoundTrip() throws {
        let pem = try RSAPrivateKey.fixture.pemRepresentation()
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let reloaded = try RSAPrivateKey(pem: pem)
        #expect(try reloaded.publicKey.modulus == RSAPrivateKey.fixture.publicKey.modulus)
    }

    @Test func generatesA2048BitKey() throws {
        let key = try RSAPrivateKey.generate(bits: 2048)
        let message: [UInt8] = [1, 2, 3]
        #expect(try key.publicKey.modulusBits == 2048)
        #expect(try key.publicKey.isValidSignature(key.signature(for: message), for: message))
    }

    @Test func refusesToGenerateSmallKeys() {
        #expect(throws: CryptoKeyError(.modulusTooSmall)) { try RSAPrivateKey.generate(bits: 1024) }
    }

    @Test func refusesSmallPEMKeys() {
        #expect(throws: CryptoKeyError(.modulusTooSmall)) { try RSAPrivateKey(pem: RSAPrivateKey.smallFixturePEM) }
    }

    @Test func refusesECKeyAsRSA() {
        #expect(throws: CryptoKeyError(.wrongKeyType)) { try RSAPrivateKey(pem: ES256PrivateKey.fixturePEM) }
    }

    @Test func refusesGarbagePEM() {
        #expect(throws: CryptoKeyError(.invalidEncoding)) { try RSAPrivateKey(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n") }
    }

    @Test func modulusBoundary() throws {
        let modulus2047 = [UInt8](repeating: 0xff, count: 256).enumerated().map { $0.offset == 0 ? 0x7f : $0.element }
        #expect(throws: CryptoKeyError(.modulusTooSmall)) { try RSAPublicKey(modulus: modulus2047, exponent: [1, 0, 1]) }
        let modulus2048 = [UInt8](repeating: 0xff, count: 256)
        _ = try RSAPublicKey(modulus: modulus2048, exponent: [1, 0, 1])
        let modulus8193 = [0x01] + [UInt8](repeating: 0xff, count: 1024)
        #expect(throws: CryptoKeyError(.modulusTooLarge)) { try RSAPublicKey(modulus: modulus8193, exponent: [1, 0, 1]) }
    }

    @Test(arguments: [[0x01], [0x00, 0x01], [0x01, 0x00, 0x00], [0x02], [], [0x00]] as [[UInt8]])
    func refusesEvenOrTinyExponent(_ exponent: [UInt8]) {
        let modulus = [UInt8](repeating: 0xff, count: 256)
        #expect(throws: CryptoKeyError(.invalidExponent)) { try RSAPublicKey(modulus: modulus, exponent: exponent) }
    }

    @Test func acceptsExponentThree() throws {
        _ = try RSAPublicKey(modulus: [UInt8](repeating: 0xff, count: 256), exponent: [3])
    }

    @Test func refusesEvenModulus() {
        let modulus = [UInt8](repeating: 0xff, count: 255) + [0xfe]
        #expect(throws: CryptoKeyError(.invalidEncoding)) { try RSAPublicKey(modulus: modulus, exponent: [1, 0, 1]) }
    }
}
