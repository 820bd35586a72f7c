import CryptoCore
import JSON

extension ES256PublicKey {
    /// Builds a key from an EC JWK on P-256: `crv` "P-256", `x` and `y` of 32 bytes each
    /// (RFC 7518 §6.2.1).
    /// - Throws: ``JWTError`` `.keyMismatch` for another `kty` or `crv`, `.malformed` for bad
    ///   base64url, ``CryptoKeyError`` `.invalidPoint` for a point not on the curve.
    public init(jwk: JWK) throws {
        guard jwk.keyType == "EC", jwk.members["crv"]?.stringValue == "P-256" else {
            throw JWTError(.keyMismatch, detail: "JWK is not an EC P-256 key")
        }
        try self.init(x: jwk.bytes("x"), y: jwk.bytes("y"))
    }

    /// This key as a JWK for ES256 signatures, with `kid`.
    public func jwk(keyID: String) throws -> JWK {
        try JWK(members: [
            "kty": "EC", "kid": .string(keyID), "use": "sig", "alg": "ES256", "crv": "P-256",
            "x": .string(Base64URL.encode(x)), "y": .string(Base64URL.encode(y)),
        ])
    }
}
