import TestSupport
import CryptoCore
import Foundation
import Testing
@testable import JOSE
import JSON

/// RFC 7515 Appendix A: A.2 (RS256) and A.3 (ES256) verify from the shared vectors; A.1 (HS256)
/// and A.5 (unsecured) are the RFC's literal examples and must fail our allow-list.
struct RFC7515Tests {
    static let payload = "eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
    static let a1HS256 = "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9." + payload + ".dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let a5Unsecured = "eyJhbGciOiJub25lIn0." + payload + "."

    @Test(.vectors("rfc/rfc7515-appendix-a.json")) func appendixA2AndA3Verify() throws {
        guard let data = TestVectors.load("rfc/rfc7515-appendix-a.json") else { return }
        let tests = try #require(try JSONValue(parsing: Array(data))["tests"]?.arrayValue)
        #expect(tests.count == 2)
        for test in tests {
            let jws = try JWS(compact: try #require(test["jws"]?.stringValue))
            let jwk = try JWK(json: try #require(test["public_jwk"]))
            let alg = try jws.header.checkPolicy(allowing: [.rs256, .es256])
            #expect(alg.rawValue == test["alg"]?.stringValue)
            switch alg {
            case .rs256: try jws.verify(with: RSAPublicKey(jwk: jwk))
            case .es256: try jws.verify(with: ES256PublicKey(jwk: jwk))
            }
            #expect(try JSONValue(parsing: jws.payload)["iss"] == "joe")
            let claims = try JSONValue(parsing: jws.payload)
            #expect(claims["exp"] == 1_300_819_380)
        }
    }

    @Test func appendixA1HS256IsRefusedByTheAllowList() throws {
        let jws = try JWS(compact: Self.a1HS256)
        #expect(jws.header.algorithm == "HS256")
        #expect(throws: JWTError(.unsupportedAlgorithm)) { try jws.header.checkPolicy(allowing: [.rs256, .es256]) }
    }

    @Test func appendixA5UnsecuredIsRefused() {
        #expect(throws: JWTError(.malformed)) { try JWS(compact: Self.a5Unsecured) }
    }
}
