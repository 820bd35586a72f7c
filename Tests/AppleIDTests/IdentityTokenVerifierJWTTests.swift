import Foundation
import JSON
import Testing
@testable import AppleID

/// The reusable core, as server-to-server notifications will use it: other client ids, no
/// `exp`, no `sub`, and a freshness window on `iat`.
struct IdentityTokenVerifierJWTTests {
    typealias Fixture = IdentityTokenFixture

    @Test func verifiesANotificationShapedJWT() async throws {
        let t = Fixture.now.timeIntervalSince1970
        let token = try Fixture.token(claims: [
            "exp": nil, "sub": nil, "email": nil, "nonce": nil, "aud": "com.example.web",
            "jti": "abc", "events": #"{"type":"email-disabled","sub":"001"}"#, "iat": .number(t - 100),
        ])
        let verifier = Fixture.verifier(keys: try Fixture.keys(), clientIDs: ["com.example.web", Fixture.clientID], maximumTokenAge: 300)
        let jwt = try await verifier.verifyJWT(token, requireExpiration: false)
        #expect(jwt.audience == "com.example.web")
        #expect(jwt.claims["jti"] == "abc")
        #expect(jwt.expiresAt == nil)
        #expect(jwt.header.keyID == Fixture.keyID)
    }

    @Test func freshnessWindowBoundary() async throws {
        let t = Fixture.now.timeIntervalSince1970
        let verifier = Fixture.verifier(keys: try Fixture.keys(), maximumTokenAge: 300)
        _ = try await verifier.verifyJWT(Fixture.token(claims: ["iat": .number(t - 360)]))
        let error = await #expect(throws: AppleIDError.self) {
            try await verifier.verifyJWT(Fixture.token(claims: ["iat": .number(t - 361)]))
        }
        #expect(error?.reason == .tooOld)
    }

    @Test func expirationStillCheckedWhenPresent() async throws {
        let t = Fixture.now.timeIntervalSince1970
        let verifier = Fixture.verifier(keys: try Fixture.keys())
        let error = await #expect(throws: AppleIDError.self) {
            try await verifier.verifyJWT(Fixture.token(claims: ["exp": .number(t - 61)]), requireExpiration: false)
        }
        #expect(error?.reason == .expired)
    }
}
