import TestSupport
import CryptoCore
import Testing
@testable import JOSE
import JSON

struct JWTSignerTests {
    let claims: JSONValue = ["sub": "001", "iss": "https://appleid.apple.com", "exp": 2_000_000_000]

    @Test func signsRS256() throws {
        let token = try JWTSigner.sign(claims: claims, keyID: "k1", key: .rs256(RSAPrivateKey.fixture))
        let jws = try JWS(compact: token)
        #expect(jws.header.members == ["alg": "RS256", "kid": "k1"])
        #expect(try JSONValue(parsing: jws.payload) == claims)
        try jws.verify(with: RSAPrivateKey.fixture.publicKey)
        #expect(try JWTSigner.sign(claims: claims, keyID: "k1", key: .rs256(RSAPrivateKey.fixture)) == token)
    }

    @Test func signsES256WithRawSignature() throws {
        let key = try ES256PrivateKey(pem: ES256PrivateKey.fixturePEM)
        let token = try JWTSigner.sign(claims: claims, keyID: "ABC123DEFG", key: .es256(key))
        let jws = try JWS(compact: token)
        #expect(jws.signature.count == 64)
        #expect(try jws.header.checkPolicy(allowing: [.es256]) == .es256)
        try jws.verify(with: key.publicKey)
    }

    @Test func algCannotBeOverridden() throws {
        let token = try JWTSigner.sign(claims: claims, keyID: nil, extraHeader: ["alg": "none", "typ": "JWT"], key: .rs256(RSAPrivateKey.fixture))
        let header = try JWS(compact: token).header
        #expect(header.algorithm == "RS256" && header.type == "JWT" && header.keyID == nil)
    }
}
