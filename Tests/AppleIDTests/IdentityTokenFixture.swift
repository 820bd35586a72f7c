import AppleID
import CryptoCore
import Foundation
import JOSE
import JSON
import TestSupport

/// A test RSA key standing in for Apple's, and a minter of identity tokens that differ from a
/// valid one only in the members a test overrides (`nil` removes a member).
enum IdentityTokenFixture {
    static let now = Date(timeIntervalSince1970: 1_750_000_000)
    static let keyID = "fixture-kid"
    static let clientID = "com.example.til"
    static let rawNonce = "n-0S6_WzA2Mj"

    /// The fixed test key standing in for Apple's.
    static let key = RSAPrivateKey.fixture

    static let otherKey: RSAPrivateKey = {
        do { return try RSAPrivateKey.generate(bits: 2048) } catch { fatalError("fixture key: \(error)") }
    }()

    static var header: [String: JSONValue] { ["alg": "RS256", "kid": .string(keyID)] }

    static var claims: [String: JSONValue] {
        let t = now.timeIntervalSince1970
        return [
            "iss": "https://appleid.apple.com",
            "aud": .string(clientID),
            "exp": .number(t + 600),
            "iat": .number(t - 10),
            "sub": "001234.abcdef0123456789.1234",
            "email": "jane@privaterelay.appleid.com",
            "email_verified": "true",
            "is_private_email": "true",
            "auth_time": .number(t - 12),
            "nonce_supported": true,
            "real_user_status": 2,
            "c_hash": "Q4ZmZ0Ls6Dc2ImVh4gY1Ng",
            "nonce": .string(SHA256.hexHash(rawNonce)),
        ]
    }

    /// A token signed by `key`, with `header` and `claims` overrides applied.
    static func token(
        header headerOverrides: [String: JSONValue?] = [:],
        claims claimOverrides: [String: JSONValue?] = [:],
        key: RSAPrivateKey = key
    ) throws -> String {
        var header = header, claims = claims
        for (name, value) in headerOverrides { header[name] = value }
        for (name, value) in claimOverrides { claims[name] = value }
        return try token(headerJSON: JSONValue.object(header).serialized(), payload: JSONValue.object(claims).serialized(), key: key)
    }

    /// A token over arbitrary header and payload bytes.
    static func token(headerJSON: [UInt8], payload: [UInt8], key: RSAPrivateKey = key) throws -> String {
        try JWTSigner.sign(header: headerJSON, payload: payload, key: .rs256(key))
    }

    static func keys() throws -> RecordingKeys {
        RecordingKeys(FixedSigningKeys([keyID: try key.publicKey]))
    }

    static func verifier(
        keys: any SigningKeyProvider, clientIDs: Set<String> = [clientID], maximumTokenAge: TimeInterval? = nil,
        at time: Date = now
    ) -> IdentityTokenVerifier {
        IdentityTokenVerifier(keys: keys, clientIDs: clientIDs, maximumTokenAge: maximumTokenAge, clock: { time })
    }

    /// A key provider that counts lookups, so tests can prove a token was refused before any.
    final class RecordingKeys: SigningKeyProvider {
        private let inner: any SigningKeyProvider
        private let counter = Counter()

        init(_ inner: any SigningKeyProvider) { self.inner = inner }

        func rsaKey(for kid: String) async throws -> RSAPublicKey {
            await counter.increment()
            return try await inner.rsaKey(for: kid)
        }

        var lookups: Int { get async { await counter.value } }

        private actor Counter {
            var value = 0
            func increment() { value += 1 }
        }
    }

    /// A key provider that always fails with `error`.
    struct FailingKeys: SigningKeyProvider {
        let error: any Error & Sendable
        func rsaKey(for kid: String) async throws -> RSAPublicKey { throw error }
    }
}
