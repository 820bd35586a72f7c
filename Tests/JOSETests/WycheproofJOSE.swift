import TestSupport
import CryptoCore
import Foundation
import JOSE
import JSON

/// Wycheproof's JOSE files (`json_web_signature_test.json`, `json_web_key_test.json`), read as
/// raw JSON because each group's key (`private`) is a JWK or a JWK Set.
enum WycheproofJOSE {
    struct Case {
        var tcId: Int
        var comment: String
        var jws: String
        var expectedValid: Bool
        /// The key set the group's tokens are checked against (a lone JWK becomes a set of one).
        var keySet: [UInt8]
        /// The `alg` the group's key is for, when it names one.
        var groupAlgorithm: String?
    }

    static func cases(_ fileName: String) throws -> [Case]? {
        guard let data = TestVectors.load("wycheproof/" + fileName) else { return nil }
        let root = try JSONValue(parsing: Array(data))
        var cases: [Case] = []
        for group in root["testGroups"]?.arrayValue ?? [] {
            guard let key = group["private"] else { continue }
            let keySet: JSONValue = key["keys"] != nil ? key : ["keys": [key]]
            let algorithms = Set((keySet["keys"]?.arrayValue ?? []).compactMap { $0["alg"]?.stringValue })
            for test in group["tests"]?.arrayValue ?? [] {
                cases.append(Case(
                    tcId: Int(test["tcId"]?.numberValue ?? -1),
                    comment: test["comment"]?.stringValue ?? "",
                    jws: test["jws"]?.stringValue ?? "",
                    expectedValid: test["result"]?.stringValue == "valid",
                    keySet: keySet.serialized(),
                    groupAlgorithm: algorithms.count == 1 ? algorithms.first : nil))
            }
        }
        return cases
    }

    /// What an application of this library does with a token and a key set: parse, apply the
    /// RS256/ES256 allow-list and header policy, pick the single key by `kid` (or the only key
    /// when the header has none), check the key permits the algorithm, verify.
    static func verify(_ compact: String, keySet: [UInt8]) -> Bool {
        do {
            let jws = try JWS(compact: compact)
            let alg = try jws.header.checkPolicy(allowing: [.rs256, .es256])
            let set = try JWKSet(json: keySet)
            let jwk: JWK?
            if let kid = jws.header.keyID { jwk = set.key(withID: kid) } else { jwk = set.keys.count == 1 ? set.keys[0] : nil }
            guard let jwk, jwk.permits(alg) else { return false }
            switch alg {
            case .rs256: try jws.verify(with: RSAPublicKey(jwk: jwk))
            case .es256: try jws.verify(with: ES256PublicKey(jwk: jwk))
            }
            return true
        } catch {
            return false
        }
    }
}
