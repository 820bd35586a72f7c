import CryptoCore
import JSON

extension RSAPublicKey {
    /// Builds a key from an RSA JWK's `n` and `e` (RFC 7518 §6.3.1).
    /// - Throws: ``JWTError`` `.keyMismatch` if `kty` is not "RSA", `.malformed` if `n` or `e` is
    ///   missing or not strict base64url, ``CryptoKeyError`` for a key under 2048 bits or a bad exponent.
    public init(jwk: JWK) throws {
        guard jwk.keyType == "RSA" else { throw JWTError(.keyMismatch, detail: "JWK kty is not RSA") }
        try self.init(modulus: jwk.bytes("n"), exponent: jwk.bytes("e"))
    }

    /// Builds a key from base64url `n` and `e`, as they appear in a JWK.
    public init(n: String, e: String) throws {
        guard let modulus = Base64URL.decode(n), let exponent = Base64URL.decode(e) else {
            throw JWTError(.malformed, detail: "n or e is not base64url")
        }
        try self.init(modulus: modulus, exponent: exponent)
    }

    /// This key as a JWK for RS256 signatures, with `kid` (RFC 7517 §4, RFC 7518 §6.3.1).
    public func jwk(keyID: String) throws -> JWK {
        try JWK(members: [
            "kty": "RSA", "kid": .string(keyID), "use": "sig", "alg": "RS256",
            "n": .string(Base64URL.encode(modulus)), "e": .string(Base64URL.encode(exponent)),
        ])
    }
}
