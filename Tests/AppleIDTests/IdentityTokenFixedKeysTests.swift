import JOSE
import JSON
import Testing
@testable import AppleID

struct IdentityTokenFixedKeysTests {
    @Test func fixedKeysFromAJWKSetSkipAmbiguousAndUnusableKeys() async throws {
        let publicKey = try IdentityTokenFixture.key.publicKey
        let good = try publicKey.jwk(keyID: "a")
        let duplicate = try publicKey.jwk(keyID: "dup")
        var encryption = try publicKey.jwk(keyID: "enc")
        encryption.members["use"] = "enc"
        let provider = FixedSigningKeys(JWKSet(keys: [good, duplicate, duplicate, try JWK(members: encryption.members)]))
        #expect(Set(provider.keys.keys) == ["a"])
        _ = try await provider.rsaKey(for: "a")
        await #expect(throws: AppleIDError.unknownKeyID) { try await provider.rsaKey(for: "dup") }
    }
}
