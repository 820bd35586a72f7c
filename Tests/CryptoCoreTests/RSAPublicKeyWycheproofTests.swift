import TestSupport
import Testing
@testable import CryptoCore

/// RSASSA-PKCS1-v1_5 SHA-256 verification against every Wycheproof vector, for every key size
/// we accept (2048, 3072, 4096).
///
/// "acceptable" cases (flag `MissingNull`: a DigestInfo without the NULL parameters) are
/// expected to be **rejected**: RFC 8017 §9.2 fixes the encoding with NULL, and OpenSSL 3
/// compares the whole encoded DigestInfo, so we take the strict choice.
@Suite(.vectors("wycheproof"))
struct RSAPublicKeyWycheproofTests {
    @Test(arguments: [
        "rsa_signature_2048_sha256_test.json",
        "rsa_signature_3072_sha256_test.json",
        "rsa_signature_4096_sha256_test.json",
    ])
    func wycheproofRS256(_ fileName: String) throws {
        guard let file = try Wycheproof.file(fileName) else { return }
        var checked = 0
        for group in file.testGroups {
            let key = try RSAPublicKey(
                modulus: [UInt8](hex: try #require(group.publicKey.modulus)),
                exponent: [UInt8](hex: try #require(group.publicKey.publicExponent)))
            for test in group.tests {
                let valid = key.isValidSignature([UInt8](hex: test.sig), for: [UInt8](hex: test.msg))
                #expect(valid == (test.result == "valid"), "tcId \(test.tcId) \(test.comment) \(test.flags)")
                checked += 1
            }
        }
        #expect(checked == file.numberOfTests)
    }
}
