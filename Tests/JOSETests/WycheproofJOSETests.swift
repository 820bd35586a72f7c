import TestSupport
import Testing
@testable import JOSE
import JSON

/// Wycheproof's JWS and JWK vectors, applied to what we implement.
///
/// Groups whose key is for RS256 or ES256 must give exactly Wycheproof's result. Every other
/// group (HS*, PS*, RS384/512, ES521) must be **rejected**, even where Wycheproof says "valid":
/// our allow-list has only RS256 and ES256. One deliberate deviation, stricter than Wycheproof:
/// tcId 349 (RFC 7520 figure 13 with `"key_ops": ["sign, verify"]`, a single malformed
/// operation) is rejected, because `key_ops` without "verify" forbids verification (RFC 7517 §4.3).
@Suite(.vectors("wycheproof"))
struct WycheproofJOSETests {
    static let stricterThanWycheproof: Set<Int> = [349]

    @Test(arguments: ["json_web_signature_test.json", "json_web_key_test.json"])
    func wycheproof(_ fileName: String) throws {
        guard let cases = try WycheproofJOSE.cases(fileName) else { return }
        #expect(!cases.isEmpty)
        var applicable = 0
        for test in cases {
            let implemented = test.groupAlgorithm.map { JWSAlgorithm(rawValue: $0) != nil } ?? true
            let expected = test.expectedValid && implemented && !Self.stricterThanWycheproof.contains(test.tcId)
            if implemented { applicable += 1 }
            let result = WycheproofJOSE.verify(test.jws, keySet: test.keySet)
            #expect(result == expected, "tcId \(test.tcId) \(test.comment)")
        }
        #expect(applicable > 0)
    }
}
