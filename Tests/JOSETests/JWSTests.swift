import TestSupport
import CryptoCore
import Testing
@testable import JOSE
import JSON

struct JWSTests {
    @Test func parsesAndVerifiesAValidToken() throws {
        let jws = try JWS(compact: JWS.fixture())
        #expect(jws.header.algorithm == "RS256")
        #expect(jws.header.keyID == "k1")
        #expect(try jws.header.checkPolicy(allowing: [.rs256]) == .rs256)
        try jws.verify(with: RSAPrivateKey.fixture.publicKey)
    }

    @Test(arguments: [
        "a.b", "a.b.c.d", "a..", ".e30.c2ln", "eyJhbGciOiJSUzI1NiJ9.e30.", "eyJhbGciOiJSUzI1NiJ9.e30", "", "...",
        "eyJhbGciOiJSUzI1NiJ9.e30=.c2ln", "eyJhbGciOiJSUzI1NiJ9 .e30.c2ln",
    ])
    func rejectsMalformedStructure(_ token: String) {
        #expect(throws: JWTError(.malformed)) { try JWS(compact: token) }
        #expect(throws: JWTError(.malformed)) { try JWS.unverifiedContent(compact: token) }
    }

    @Test func unverifiedContentIsTheHeaderAndPayloadWithoutDecodingTheSignature() throws {
        let jws = try JWS(compact: JWS.fixture())
        let content = try JWS.unverifiedContent(compact: JWS.fixture())
        #expect(content.header == jws.header)
        #expect(content.payload == jws.payload)
        let undecodable = "eyJhbGciOiJSUzI1NiJ9.e30.c2l="
        #expect(throws: JWTError(.malformed)) { try JWS(compact: undecodable) }
        #expect(try JWS.unverifiedContent(compact: undecodable).payload == Array("{}".utf8))
    }

    @Test(arguments: [
        #"[]"#, #"{}"#, #"{"alg":1}"#, #"{"alg":"RS256","kid":5}"#, #"{"alg":"RS256","crit":"b64"}"#,
        #"{"alg":"RS256","alg":"RS256"}"#, #"{"alg":"RS256","typ":true}"#, "not json",
    ])
    func rejectsMalformedHeader(_ header: String) {
        #expect(throws: JWTError(.malformed)) { try JWS(compact: JWS.unsigned(header: header)) }
    }

    @Test(arguments: ["none", "None", "HS256", "HS384", "HS512", "PS256", "RS384", "RS512", "ES256", "rs256", "RS256 ", "EdDSA", ""])
    func identityTokenAllowListRefuses(_ alg: String) throws {
        let jws = try JWS(compact: JWS.unsigned(header: #"{"alg":"\#(alg)","kid":"k1"}"#))
        #expect(throws: JWTError(.unsupportedAlgorithm)) { try jws.header.checkPolicy(allowing: [.rs256]) }
    }

    @Test func unknownCriticalExtensionIsRefused() throws {
        let jws = try JWS(compact: JWS.unsigned(header: #"{"alg":"RS256","kid":"k1","crit":["exp"],"exp":1}"#))
        #expect(throws: JWTError(.criticalHeader)) { try jws.header.checkPolicy(allowing: [.rs256]) }
    }

    @Test(arguments: ["jku", "x5u", "jwk", "x5c"])
    func keyReferencesAreRefusedNotFollowed(_ member: String) throws {
        let jws = try JWS(compact: JWS.unsigned(header: #"{"alg":"RS256","kid":"k1","\#(member)":"https://attacker.example"}"#))
        #expect(jws.header.keyReferences == [member])
        #expect(throws: JWTError(.forbiddenHeader)) { try jws.header.checkPolicy(allowing: [.rs256]) }
    }

    @Test func unsecuredTokenWithASignatureIsStillRefused() throws {
        let jws = try JWS(compact: JWS.unsigned(header: #"{"alg":"none"}"#))
        #expect(throws: JWTError(.unsupportedAlgorithm)) { try jws.header.checkPolicy(allowing: [.rs256, .es256]) }
    }

    @Test func keyOfAnotherAlgorithmIsRefused() throws {
        let jws = try JWS(compact: JWS.fixture())
        let ecKey = try ES256PrivateKey(pem: ES256PrivateKey.fixturePEM).publicKey
        #expect(throws: JWTError(.keyMismatch)) { try jws.verify(with: ecKey) }
    }

    @Test func tamperedPayloadFailsVerification() throws {
        let parts = try JWS.fixture().split(separator: ".")
        let forged = parts[0] + "." + Base64URL.encode(Array(#"{"sub":"b"}"#.utf8)) + "." + parts[2]
        #expect(throws: JWTError(.badSignature)) { try JWS(compact: forged).verify(with: RSAPrivateKey.fixture.publicKey) }
    }

    @Test func tokenSizeLimitBoundary() throws {
        let limit = JWSLimits.defaultMaximumTokenBytes
        let atLimit = try Self.token(totalLength: limit)
        #expect(atLimit.utf8.count == limit)
        _ = try JWS(compact: atLimit)
        let overLimit = try Self.token(totalLength: limit + 1)
        #expect(overLimit.utf8.count == limit + 1)
        #expect(throws: JWTError(.malformed)) { try JWS(compact: overLimit) }
    }

    @Test func headerSizeLimitBoundary() throws {
        let limit = JWSLimits.defaultMaximumHeaderBytes
        let base = #"{"alg":"RS256","p":""}"#.utf8.count
        func header(_ size: Int) -> String { #"{"alg":"RS256","p":"\#(String(repeating: "x", count: size - base))"}"# }
        _ = try JWS(compact: JWS.unsigned(header: header(limit)))
        #expect(throws: JWTError(.malformed)) { try JWS(compact: JWS.unsigned(header: header(limit + 1))) }
    }

    @Test func signatureSizeLimitBoundary() throws {
        let limit = JWSLimits.defaultMaximumSignatureBytes
        _ = try JWS(compact: JWS.unsigned(header: #"{"alg":"RS256"}"#, signatureBytes: limit))
        #expect(throws: JWTError(.malformed)) {
            try JWS(compact: JWS.unsigned(header: #"{"alg":"RS256"}"#, signatureBytes: limit + 1))
        }
    }

    @Test func limitsAreConfigurable() throws {
        let token = try JWS.fixture()
        let limits = JWSLimits(maximumTokenBytes: token.utf8.count - 1)
        #expect(throws: JWTError(.malformed)) { try JWS(compact: token, limits: limits) }
        _ = try JWS(compact: token, limits: JWSLimits(maximumTokenBytes: token.utf8.count))
    }

    /// A structurally valid token of exactly `totalLength` bytes (payload padded with JSON whitespace).
    static func token(totalLength: Int) throws -> String {
        let header = Base64URL.encode(Array(#"{"alg":"RS256"}"#.utf8))
        let signature = Base64URL.encode([UInt8](repeating: 7, count: 256))
        for extra in 0..<3 {
            let headerText = extra == 0 ? header : Base64URL.encode(Array((#"{"alg":"RS256""# + String(repeating: " ", count: extra) + "}").utf8))
            let payloadLength = totalLength - headerText.utf8.count - signature.utf8.count - 2
            for padding in 0..<4 {
                let bytes = payloadLength * 3 / 4 - padding
                guard bytes >= 2 else { continue }
                let payload = Base64URL.encode(Array(("{" + String(repeating: " ", count: bytes - 2) + "}").utf8))
                if payload.utf8.count == payloadLength { return headerText + "." + payload + "." + signature }
            }
        }
        throw JWTError(.malformed, detail: "cannot build a token of that length")
    }
}
