import TestSupport
import CryptoCore
import Testing
@testable import JOSE
import JSON

struct JWKSetTests {
    static let rsaJWK: JSONValue = try! RSAPrivateKey.fixture.publicKey.jwk(keyID: "k1").jsonValue

    @Test func roundTripsAnRSAKeyThroughJWK() throws {
        let publicKey = try RSAPrivateKey.fixture.publicKey
        let jwk = try publicKey.jwk(keyID: "k1")
        #expect(jwk.keyID == "k1" && jwk.algorithm == "RS256" && jwk.use == "sig")
        let rebuilt = try RSAPublicKey(jwk: JWK(json: jwk.jsonValue.serialized()))
        #expect(rebuilt.modulus == publicKey.modulus)
        let n = try #require(jwk.members["n"]?.stringValue), e = try #require(jwk.members["e"]?.stringValue)
        #expect(try RSAPublicKey(n: n, e: e).exponent == [1, 0, 1])
    }

    @Test func roundTripsAnECKeyThroughJWK() throws {
        let publicKey = try ES256PrivateKey(pem: ES256PrivateKey.fixturePEM).publicKey
        let jwk = try publicKey.jwk(keyID: "e1")
        #expect(jwk.members["crv"] == "P-256")
        #expect(try ES256PublicKey(jwk: jwk).x == publicKey.x)
    }

    @Test func skipsUnknownKeyTypes() throws {
        let document: JSONValue = ["keys": [["kty": "OKP", "crv": "Ed25519", "x": "AA"], ["kty": "oct", "k": "AA"], Self.rsaJWK]]
        let set = try JWKSet(json: document.serialized())
        #expect(set.keys.count == 1)
        #expect(set.key(withID: "k1") != nil)
        _ = try set.rsaKey(withID: "k1")
    }

    @Test(arguments: [#"{}"#, #"{"keys":{}}"#, #"[]"#, #"{"keys":[{"kty":"RSA","kid":7}]}"#, #"{"keys":[{"kty":"RSA","key_ops":"verify"}]}"#])
    func rejectsMalformedSets(_ text: String) {
        #expect(throws: JWTError(.malformed)) { try JWKSet(json: Array(text.utf8)) }
    }

    @Test func duplicateKeyIDIsAmbiguous() throws {
        let set = try JWKSet(json: (["keys": [Self.rsaJWK, Self.rsaJWK]] as JSONValue).serialized())
        #expect(set.key(withID: "k1") == nil)
        #expect(throws: JWTError(.unknownKeyID)) { try set.rsaKey(withID: "k1") }
    }

    @Test func unknownKeyID() throws {
        let set = try JWKSet(json: (["keys": [Self.rsaJWK]] as JSONValue).serialized())
        #expect(throws: JWTError(.unknownKeyID)) { try set.rsaKey(withID: "nope") }
    }

    @Test func keyUsageMustPermitRS256() throws {
        for (member, value) in [("use", "enc"), ("alg", "PS256"), ("kty", "EC")] as [(String, JSONValue)] {
            var members = try #require(Self.rsaJWK.objectValue)
            members[member] = value
            let set = try JWKSet(json: (["keys": [.object(members)]] as JSONValue).serialized())
            #expect(throws: JWTError(.keyMismatch), "\(member)") { try set.rsaKey(withID: "k1") }
        }
        var members = try #require(Self.rsaJWK.objectValue)
        members["key_ops"] = ["encrypt"]
        #expect(!(try JWK(json: .object(members)).permits(.rs256)))
        members["key_ops"] = ["verify"]
        #expect(try JWK(json: .object(members)).permits(.rs256))
    }

    @Test func maximumKeysBoundary() throws {
        let other: JSONValue = ["kty": "OKP"]
        let atLimit: JSONValue = ["keys": .array(Array(repeating: other, count: JWKSet.maximumKeys))]
        #expect(try JWKSet(json: atLimit.serialized()).keys.isEmpty)
        let overLimit: JSONValue = ["keys": .array(Array(repeating: other, count: JWKSet.maximumKeys + 1))]
        #expect(throws: JWTError(.malformed)) { try JWKSet(json: overLimit.serialized()) }
    }

    @Test func weakRSAKeysAreRefused() throws {
        var members = try #require(Self.rsaJWK.objectValue)
        members["e"] = "AQ"
        #expect(throws: CryptoKeyError(.invalidExponent)) { try RSAPublicKey(jwk: JWK(json: .object(members))) }
        members["e"] = "AQAB"
        members["n"] = .string(Base64URL.encode([UInt8](repeating: 0xff, count: 128)))
        #expect(throws: CryptoKeyError(.modulusTooSmall)) { try RSAPublicKey(jwk: JWK(json: .object(members))) }
    }
}
