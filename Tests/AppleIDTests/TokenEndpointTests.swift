import Foundation
import JSON
import Testing
@testable import AppleID

/// What the server checks of Apple's token endpoint: the `id_token` it returns over the server's own TLS
/// connection (claims, not the signature), and the form it posts.
struct TokenEndpointTests {
    typealias Fixture = IdentityTokenFixture

    func verifier() throws -> IdentityTokenVerifier {
        Fixture.verifier(keys: try Fixture.keys())
    }

    @Test func theTokenEndpointsIDTokenIsCheckedWithoutItsSignatureOrKeys() async throws {
        let keys = try Fixture.keys()
        let verifier = Fixture.verifier(keys: keys)
        // Signed by a key Apple's set does not hold: the TLS channel, not the signature, vouches for the issuer.
        let token = try verifier.verifyFromTokenEndpoint(try Fixture.token(key: Fixture.otherKey))
        #expect(token.sub == "001234.abcdef0123456789.1234")
        #expect(token.audience == Fixture.clientID)
        #expect(await keys.lookups == 0, "no key is fetched for it")
    }

    @Test(arguments: [
        ("iss", JSONValue.string("https://evil.example"), AppleIDError.Reason.wrongIssuer),
        ("aud", JSONValue.string("com.example.other"), .wrongAudience),
        ("exp", JSONValue.number(Fixture.now.timeIntervalSince1970 - 61), .expired),
        ("sub", JSONValue.string(""), .missingSubject),
    ])
    func itsClaimsAreCheckedAsAnyIdentityTokensAre(_ claim: String, _ value: JSONValue, _ reason: AppleIDError.Reason)
        throws
    {
        let token = try Fixture.token(claims: [claim: value])
        let error = #expect(throws: AppleIDError.self) { try self.verifier().verifyFromTokenEndpoint(token) }
        #expect(error?.reason == reason)
    }

    @Test(arguments: ["none", "HS256", "ES256"])
    func onlyRS256IsAccepted(_ algorithm: String) throws {
        let token = try Fixture.token(header: ["alg": .string(algorithm)])
        #expect(throws: AppleIDError.self) { try self.verifier().verifyFromTokenEndpoint(token) }
    }

    /// `expires_in` as Apple's side sends it: a whole number up to the limit is taken; anything else is "not said"
    /// (0), never a trap (`Int(1e300)` ended the process).
    /// Apple's `error` code is kept to its alphabet before it reaches a log line: an answer's control characters
    /// started a forged line. Found by a black-box review.
    @Test func applesErrorCodeIsLoggable() {
        #expect(AppleAuthError.loggableCode("invalid_grant") == "invalid_grant")
        let hostile = AppleAuthError.loggableCode("weird_error\u{1B}[31m\nforged line é" + String(repeating: "x", count: 60))
        #expect(hostile.hasPrefix("weird_error??31m?forged?line??"))
        #expect(hostile.count == 40)
        #expect(!"\(AppleAuthError(.apple(hostile), detail: "x"))".contains { $0.isNewline || $0 == "\u{1B}" })
    }

    @Test func expiresInIsTakenOnlyAsAWholeNumberWithinTheLimit() {
        let limit = Double(AppleAuthClient.expiresInLimit)
        let cases: [(JSONValue?, Int)] = [
            (.number(3600), 3600), (.number(0), 0), (.number(limit), AppleAuthClient.expiresInLimit),
            (.number(limit + 1), 0), (.number(1e300), 0), (.number(-1e300), 0), (.number(-1), 0),
            (.number(9.3e18), 0), (.number(1.5), 0), (.string("3600"), 0), (.null, 0), (nil, 0),
        ]
        for (value, expected) in cases {
            #expect(AppleAuthClient.expiresIn(value) == expected, "\(String(describing: value))")
        }
    }

    @Test func theFormEscapesAllButUnreservedBytes() {
        let body = FormEncoding.encode([("client_id", "com.example.app"), ("code", "a b+c/d=é&*~")])
        #expect(String(decoding: body, as: UTF8.self) == "client_id=com.example.app&code=a+b%2Bc%2Fd%3D%C3%A9%26*%7E")
        #expect(FormEncoding.encode([]).isEmpty)
    }

    /// Every ASCII byte, against the WHATWG serializer's rule written out as a switch; the bytes of a multi-byte
    /// character are all escaped, as the test above shows.
    @Test func eachASCIIByteIsEscapedByTheSerializerRule() {
        for byte in UInt8(0)..<0x80 {
            let expected: String
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "*"):
                expected = String(UnicodeScalar(byte))
            case UInt8(ascii: " "): expected = "+"
            default: expected = "%" + String(format: "%02X", byte)
            }
            let value = String(decoding: [byte], as: UTF8.self)
            #expect(String(decoding: FormEncoding.encode([("k", value)]), as: UTF8.self) == "k=" + expected,
                    "byte \(byte)")
        }
    }
}
