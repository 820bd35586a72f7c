import CryptoCore
import Foundation
import JOSE
import JSON
import Testing
@testable import AppleID

struct IdentityTokenVerifierTests {
    typealias Fixture = IdentityTokenFixture

    /// Verifies `token`; with `nonce`, as a request carrying it; without, asking nothing of the token's nonce.
    private func verify(
        _ token: String, nonce: String? = nil, keys: (any SigningKeyProvider)? = nil, at time: Date = Fixture.now
    ) async throws -> AppleIdentityToken {
        let verifier = Fixture.verifier(keys: try keys ?? Fixture.keys(), at: time)
        return try await verifier.verify(token, expecting: nonce.map { .rawOrHashed($0) })
    }

    private func expectRefusal(
        _ reason: AppleIDError.Reason, _ token: String, nonce: String? = nil, at time: Date = Fixture.now,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let error = await #expect(throws: AppleIDError.self, sourceLocation: sourceLocation) {
            try await verify(token, nonce: nonce, at: time)
        }
        #expect(error?.reason == reason, sourceLocation: sourceLocation)
    }

    @Test func acceptsAValidTokenAndExposesItsClaims() async throws {
        let token = try await verify(Fixture.token(), nonce: Fixture.rawNonce)
        let t = Fixture.now.timeIntervalSince1970
        #expect(token.sub == "001234.abcdef0123456789.1234")
        #expect(token.email == "jane@privaterelay.appleid.com")
        #expect(token.emailVerified == true && token.isPrivateEmail == true)
        #expect(token.audience == Fixture.clientID)
        #expect(token.issuedAt == Date(timeIntervalSince1970: t - 10))
        #expect(token.expiresAt == Date(timeIntervalSince1970: t + 600))
        #expect(token.authTime == Date(timeIntervalSince1970: t - 12))
        #expect(token.nonce == SHA256.hexHash(Fixture.rawNonce))
        #expect(token.nonceSupported == true)
        #expect(token.realUserStatus == 2 && token.isLikelyReal)
        #expect(token.cHash == "Q4ZmZ0Ls6Dc2ImVh4gY1Ng" && token.atHash == nil)
    }

    @Test func audienceMayBeAnArray() async throws {
        let token = try await verify(Fixture.token(claims: ["aud": ["com.other", .string(Fixture.clientID)]]))
        #expect(token.audience == Fixture.clientID)
    }

    @Test func booleansMayBeStringsOrBooleans() async throws {
        let token = try await verify(Fixture.token(claims: ["email_verified": false, "is_private_email": "false"]))
        #expect(token.emailVerified == false && token.isPrivateEmail == false)
        try await expectRefusal(.malformed, Fixture.token(claims: ["email_verified": "yes"]))
        try await expectRefusal(.malformed, Fixture.token(claims: ["is_private_email": 1]))
    }

    @Test func optionalClaimsMayBeAbsent() async throws {
        let token = try await verify(Fixture.token(claims: [
            "email": nil, "email_verified": nil, "is_private_email": nil, "nonce": nil, "nonce_supported": nil,
            "real_user_status": nil, "auth_time": nil, "c_hash": nil,
        ]))
        #expect(token.email == nil && token.emailVerified == nil && token.nonce == nil && token.realUserStatus == nil)
    }

    @Test func unknownRealUserStatusIsTolerated() async throws {
        #expect(try await verify(Fixture.token(claims: ["real_user_status": 7])).realUserStatus == 7)
        try await expectRefusal(.malformed, Fixture.token(claims: ["real_user_status": "2"]))
    }

    @Test(arguments: ["none", "HS256", "HS512", "PS256", "ES256", "RS512", "rs256", "XYZ"])
    func onlyRS256BeforeAnyKeyLookup(_ alg: String) async throws {
        let keys = try Fixture.keys()
        let error = await #expect(throws: AppleIDError.self) {
            try await Fixture.verifier(keys: keys).verify(Fixture.token(header: ["alg": .string(alg)]), nonce: Fixture.rawNonce)
        }
        #expect(error?.reason == .token(.unsupportedAlgorithm))
        #expect(await keys.lookups == 0)
    }

    @Test func unknownCriticalHeaderIsRefused() async throws {
        try await expectRefusal(.token(.criticalHeader), Fixture.token(header: ["crit": ["exp"], "exp": 1]))
    }

    @Test(arguments: ["jku", "x5u", "jwk", "x5c"])
    func keyReferencesAreNeverFollowed(_ member: String) async throws {
        let keys = try Fixture.keys()
        let error = await #expect(throws: AppleIDError.self) {
            try await Fixture.verifier(keys: keys).verify(Fixture.token(header: [member: "https://attacker.example/keys"]),
                                                          nonce: Fixture.rawNonce)
        }
        #expect(error?.reason == .token(.forbiddenHeader))
        #expect(await keys.lookups == 0)
    }

    @Test func missingKeyIDIsMalformed() async throws {
        try await expectRefusal(.malformed, Fixture.token(header: ["kid": nil]))
    }

    @Test func unknownKeyID() async throws {
        try await expectRefusal(.unknownKeyID, Fixture.token(header: ["kid": "rotated-away"]))
    }

    @Test func badSignature() async throws {
        try await expectRefusal(.badSignature, Fixture.token(key: Fixture.otherKey))
        let parts = try Fixture.token().split(separator: ".").map(String.init)
        var claims = Fixture.claims
        claims["sub"] = "someone-else"
        let forged = parts[0] + "." + Base64URL.encode(JSONValue.object(claims).serialized()) + "." + parts[2]
        try await expectRefusal(.badSignature, forged)
    }

    @Test func unknownKeyAndBadSignatureLookTheSameToClients() {
        #expect(AppleIDError(.unknownKeyID).clientMessage == AppleIDError(.badSignature).clientMessage)
        #expect(AppleIDError(.unknownKeyID).description != AppleIDError(.badSignature).description)
    }

    @Test func keysUnavailable() async throws {
        let token = try Fixture.token()
        for failure in [AppleIDError.keysUnavailable, CancellationError()] as [any Error & Sendable] {
            let error = await #expect(throws: AppleIDError.self) {
                try await Fixture.verifier(keys: Fixture.FailingKeys(error: failure)).verify(token, nonce: Fixture.rawNonce)
            }
            #expect(error?.reason == .keysUnavailable)
        }
    }

    @Test(arguments: ["http://appleid.apple.com", "https://appleid.apple.com/", "https://appleid.apple.com.evil", "HTTPS://APPLEID.APPLE.COM", ""])
    func wrongIssuer(_ iss: String) async throws {
        try await expectRefusal(.wrongIssuer, Fixture.token(claims: ["iss": .string(iss)]))
    }

    @Test func missingIssuer() async throws {
        try await expectRefusal(.wrongIssuer, Fixture.token(claims: ["iss": nil]))
    }

    @Test(arguments: [.string("com.other"), ["com.other", "com.example"], [], .number(1), nil, .string("com.example.til ")] as [JSONValue?])
    func wrongAudience(_ aud: JSONValue?) async throws {
        try await expectRefusal(.wrongAudience, Fixture.token(claims: ["aud": aud]))
    }

    /// `aud` is compared code point by code point (RFC 7519 §7.3), not as Swift compares strings (canonical
    /// equivalence): a Kelvin sign (U+212A) is not a K. Found by a review.
    @Test func theAudienceIsComparedCodePointByCodePoint() async throws {
        let verifier = Fixture.verifier(keys: try Fixture.keys(), clientIDs: ["com.example.Kiosk"], at: Fixture.now)
        for aud in [JSONValue.string("com.example.\u{212A}iosk"), ["com.example.\u{212A}iosk"]] {
            let error = await #expect(throws: AppleIDError.self) {
                try await verifier.verify(try Fixture.token(claims: ["aud": aud]), expecting: nil)
            }
            #expect(error?.reason == .wrongAudience)
        }
        let accepted = try await verifier.verify(try Fixture.token(claims: ["aud": ["com.other", "com.example.Kiosk"]]),
                                                 expecting: nil)
        #expect(accepted.audience.utf8.elementsEqual("com.example.Kiosk".utf8))
    }

    @Test func expiryBoundaryWithLeeway() async throws {
        let t = Fixture.now.timeIntervalSince1970
        _ = try await verify(Fixture.token(claims: ["exp": .number(t - 60)]))
        try await expectRefusal(.expired, Fixture.token(claims: ["exp": .number(t - 61)]))
        // A token that never had an expiry is not "expired": it is malformed. Found by an audit.
        try await expectRefusal(.malformed, Fixture.token(claims: ["exp": nil]))
        try await expectRefusal(.malformed, Fixture.token(claims: ["exp": "tomorrow"]))
    }

    @Test func issuedAtBoundaryWithLeeway() async throws {
        let t = Fixture.now.timeIntervalSince1970
        _ = try await verify(Fixture.token(claims: ["iat": .number(t + 60)]))
        try await expectRefusal(.issuedInFuture, Fixture.token(claims: ["iat": .number(t + 61)]))
        try await expectRefusal(.malformed, Fixture.token(claims: ["iat": nil]))
    }

    /// Apple's tokens carry no `nbf`; one that does is not accepted before it, with the same leeway (RFC 7519
    /// §4.1.5). Found by an audit: `nbf` was not read.
    @Test func notBeforeBoundaryWithLeeway() async throws {
        let t = Fixture.now.timeIntervalSince1970
        _ = try await verify(Fixture.token(claims: ["nbf": .number(t + 60)]))
        _ = try await verify(Fixture.token(claims: ["nbf": .number(t - 3600)]))
        try await expectRefusal(.issuedInFuture, Fixture.token(claims: ["nbf": .number(t + 61)]))
        try await expectRefusal(.malformed, Fixture.token(claims: ["nbf": "later"]))
    }

    @Test(arguments: [nil, .string(""), .string(" "), .string("\t\u{3000}"), .number(12)] as [JSONValue?])
    func missingSubject(_ sub: JSONValue?) async throws {
        try await expectRefusal(.missingSubject, Fixture.token(claims: ["sub": sub]))
    }

    @Test func nonceRawOrHashedMatches() async throws {
        _ = try await verify(Fixture.token(), nonce: Fixture.rawNonce)
        _ = try await verify(Fixture.token(claims: ["nonce": .string(Fixture.rawNonce)]), nonce: Fixture.rawNonce)
    }

    /// The hash's hex is lowercase, as Apple's sample and the web flow write it: uppercase is another nonce.
    @Test func nonceHashInUppercaseHexIsAnotherNonce() async throws {
        try await expectRefusal(.nonceMismatch, Fixture.token(claims: [
            "nonce": .string(SHA256.hexHash(Fixture.rawNonce).uppercased())]), nonce: Fixture.rawNonce)
    }

    @Test func nonceMismatch() async throws {
        try await expectRefusal(.nonceMismatch, Fixture.token(), nonce: "another-nonce")
        try await expectRefusal(.nonceMismatch, Fixture.token(claims: ["nonce": nil]), nonce: Fixture.rawNonce)
        try await expectRefusal(.nonceMismatch, Fixture.token(claims: ["nonce": .string(SHA256.hexHash(SHA256.hexHash(Fixture.rawNonce)))]), nonce: Fixture.rawNonce)
    }

    /// A token bound to a nonce is refused from a request that sends none, saying so; a token without one is
    /// accepted from it. Only a token that came from Apple itself (`expecting: nil`) is read without a nonce.
    @Test func tokenNonceWithoutRequestNonceIsRefused() async throws {
        let verifier = Fixture.verifier(keys: try Fixture.keys())
        let error = await #expect(throws: AppleIDError.self) { try await verifier.verify(Fixture.token(), nonce: nil) }
        #expect(error?.reason == .nonceMissing)
        #expect(error?.clientMessage.contains("nonce") == true)
        let unbound = try await verifier.verify(Fixture.token(claims: ["nonce": nil]), nonce: nil)
        #expect(unbound.nonce == nil)
        #expect(try await verifier.verify(Fixture.token(), expecting: nil).nonce != nil)
        #expect(IdentityTokenVerifier.ExpectedNonce.request(nil) == .notSent)
        #expect(IdentityTokenVerifier.ExpectedNonce.request("n") == .rawOrHashed("n"))
    }

    @Test func malformedTokens() async throws {
        try await expectRefusal(.malformed, "not.a.token")
        try await expectRefusal(.malformed, Fixture.token(headerJSON: Array(#"{"alg":"RS256","kid":"fixture-kid"}"#.utf8), payload: Array("[1]".utf8)))
        try await expectRefusal(.malformed, Fixture.token(headerJSON: Array(#"{"alg":"RS256","kid":"fixture-kid"}"#.utf8), payload: Array("{".utf8)))
        try await expectRefusal(.malformed, Fixture.token(claims: ["pad": .string(String(repeating: "x", count: JWSLimits.defaultMaximumTokenBytes))]))
    }

    /// RFC 7515 §4 / RFC 7519 §4: duplicate member names are refused, so a second `sub` or
    /// `aud` cannot smuggle in a value some other parser would pick.
    @Test func duplicateClaimsAreRefused() async throws {
        let header = Array(#"{"alg":"RS256","kid":"fixture-kid"}"#.utf8)
        var claims = String(decoding: JSONValue.object(Fixture.claims).serialized(), as: UTF8.self)
        claims.removeLast()
        try await expectRefusal(.malformed, Fixture.token(headerJSON: header, payload: Array((claims + #","sub":"other"}"#).utf8)))
        let duplicateHeader = Array(#"{"alg":"RS256","kid":"fixture-kid","kid":"fixture-kid"}"#.utf8)
        try await expectRefusal(.malformed, Fixture.token(headerJSON: duplicateHeader, payload: JSONValue.object(Fixture.claims).serialized()))
    }

    @Test func errorsNeverEchoTheToken() async throws {
        let token = try Fixture.token(claims: ["iss": "https://evil.example"])
        let error = await #expect(throws: AppleIDError.self) { try await verify(token) }
        let text = String(describing: error)
        #expect(!text.contains(token) && !text.contains("evil.example"))
    }
}
