import AppleID
import CryptoCore
import Foundation
import JOSE

/// A test RSA key standing in for Apple's, and a minter of identity tokens that differ from a
/// valid one only in the members a test overrides (`nil` removes a member).
enum IdentityTokenFixture {
    static let now = Date(timeIntervalSince1970: 1_750_000_000)
    static let keyID = "fixture-kid"
    static let clientID = "com.example.til"
    static let rawNonce = "n-0S6_WzA2Mj"

    /// A fixed 2048-bit RSA key (PKCS#8 PEM), generated for these tests only.
    static let keyPEM = """
-----BEGIN PRIVATE KEY-----
MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQC4FGtdk6fLwggf
OngGFJYj1k7PI8R7DnvirFB9gjDjzdanuixi7c8wEH1P6SFx3s0AaPYfWQjiTTqq
yy8mw/DDH3Z8nbiqrmKZpjovgzpkqhVAh1i/gNmjQ97DTDIacbm5O55d3NhiIXTc
HoIPhhLb8Kus9n79JIKSbXuh1020dlW9/RzrvRs1gA2ajK6x7ci8g9STSoivIxtu
VatndyrSCRhF492fvdGwZn8XaRhMYZR8DrR/NGfTSI46eDFUrwT3GRXkN4qqTInf
3jbtckixuIr80MrAdeyQuWA2cCkM+Gvgn+Fm7CLeSsHm/EDzifnKcFMJSwFkeXuU
SSmbac2nAgMBAAECggEAAjZAmgXBsOmadmGZ+py5tyGGneeUn1PruiwO5YswcjRR
fX93tBKeeDnif5jSDY+7T+Ny/apwuGNsLow1e1ZEaNvSbSnqA6cHyUfdkB+YDoia
q8VUlCyEsPkKTrd2LKosLKUiQId8VCWJxXFaZ7xZMqpgLbpiiUEsjnzhTO8M4Hu8
RqH26FnVAp7ol48iCPKTxbzafxKscq/cjH+PJ/Atd95h0vZcqMPEPC5y076F5gWR
QgQoGRLo3Vzn/W3wHDBr6UVQKbIwSqnGLwzqctOzrE7f62wCVKSNEFMmLhCnxSwy
bIFbr+c5ZeZERkctvxt6fKOgjaw1HlSHA3RZvnsFJQKBgQD2ipzvqwMEkhUhlOjn
NW7FEMMoqm3e/pc0dzDKJQd+tTanmZS+2xsGul7Y/kkUHtdX7cI+mll3AYX7gYl3
AcrvrWLVaEVNHhNJYgQjCX1DgyluONx27WV4otEfJUtwxqC9lDhtzeu1sclPG9oo
feMKYxsoLiHs4Gna6w5w+FzRUwKBgQC/JFgJZD7EFWJmlmO1QXUwwSq73MddBCdg
Q/1+wuWLQ7e4kPEh+kxSX574cW7NOZQ5HYYf/4JgZUINVKtC0NlSqlmgN5C4edXT
z0B6X8NyFImDEavqSW5/Bbs6qIV8B0mry2sgnhG4Y7cxRoQZV4JVRxzdtv3pl9ft
Yrs5v5Jj3QKBgQC393DpqjtDQtp/x4UPWiDA7iQiiSIZPvKHVNVUUdNI6mHRKFoF
HKwLFjDGTOEtIWJhG2pRmo1drwZSSTPRWMYcmM3iHr9vrxyHKpuZpXASW6IjvExO
dhC8twnC6upjSeQR8rM0xG65kuN7o3XjtyQe0RsnnVz1S/PRRortI3bnPwKBgAN0
BKMmzHt+Z2izDtoXdKaM1tjOBEwJ5yw2Dj5cBwmdD5SmCbUzcG2MjLKwWfAbOjJN
9j5dv10+dxMGlJGAdGyp5zSdzF+I0/QfqmqLkFxfQpy7lP+GlBh3YgqNQNwcxZf0
9NqCAI/0PTsGqxxKGHCx+DOJOs0dkSkYv4krjNmBAoGBAKcI2lTl83dC/pWiY1iP
k64dtmY/B86FPwVURyGfpX1jxuGSigiCu1qGiKXtMGv3T4y9SkBCF0eWJc6oiCN3
gNe9cXOpM3AVgH/+Z7AXE7rMVtPm2D27fekL6QuosxjRb8wwLCoG49p6wublZrES
RIxT2pCt0APeS74nrZ7S7MRK
-----END PRIVATE KEY-----
"""

    static let key: RSAPrivateKey = {
        do { return try RSAPrivateKey(pem: keyPEM) } catch { fatalError("fixture key: \(error)") }
    }()

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
