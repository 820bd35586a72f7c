import TestSupport
import Testing
@testable import CryptoCore

/// ECDSA P-256 SHA-256 verification against every Wycheproof vector, in DER
/// (`ecdsa_secp256r1_sha256_test.json`) and in IEEE P1363 raw `r || s`, the JWS form
/// (`ecdsa_secp256r1_sha256_p1363_test.json`). Neither file has "acceptable" cases; BER
/// variants of DER are invalid and we reject them.
@Suite(.vectors("wycheproof"))
struct ES256PublicKeyWycheproofTests {
    @Test func wycheproofDER() throws {
        guard let file = try Wycheproof.file("ecdsa_secp256r1_sha256_test.json") else { return }
        try run(file) { key, sig, msg in key.isValidDERSignature(sig, for: msg) }
    }

    @Test func wycheproofP1363() throws {
        guard let file = try Wycheproof.file("ecdsa_secp256r1_sha256_p1363_test.json") else { return }
        try run(file) { key, sig, msg in key.isValidSignature(sig, for: msg) }
    }

    private func run(
        _ file: Wycheproof.File, verify: (ES256PublicKey, [UInt8], [UInt8]) -> Bool
    ) throws {
        var checked = 0
        for group in file.testGroups {
            #expect(group.publicKey.curve == "secp256r1")
            let key = try ES256PublicKey(
                x: Wycheproof.coordinate(try #require(group.publicKey.wx)),
                y: Wycheproof.coordinate(try #require(group.publicKey.wy)))
            for test in group.tests {
                let valid = verify(key, [UInt8](hex: test.sig), [UInt8](hex: test.msg))
                #expect(valid == (test.result == "valid"), "tcId \(test.tcId) \(test.comment) \(test.flags)")
                checked += 1
            }
        }
        #expect(checked == file.numberOfTests)
    }
}
