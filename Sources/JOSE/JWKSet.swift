import CryptoCore
import JSON

/// A JWK Set (RFC 7517 §5), such as Apple's `https://appleid.apple.com/auth/keys`.
public struct JWKSet: Sendable, Equatable {
    /// Most keys read from one set; Apple publishes a handful.
    public static let maximumKeys = 64

    /// The keys of supported types (RSA, EC), in document order.
    public var keys: [JWK]

    /// Parses a JWKS document. Keys of unknown `kty` are skipped (RFC 7517 §5: "ignore JWKs ...
    /// that use "kty" values that are not understood"), so a new key type does not break the set.
    /// - Throws: ``JWTError`` `.malformed` if there is no `keys` array, a supported key is
    ///   malformed, or there are more than ``maximumKeys`` keys.
    public init(json: [UInt8]) throws {
        guard let list = try JSONValue(joseJSON: json)["keys"]?.arrayValue else {
            throw JWTError(.malformed, detail: "JWKS lacks a keys array")
        }
        guard list.count <= Self.maximumKeys else { throw JWTError(.malformed, detail: "too many keys") }
        var keys: [JWK] = []
        for element in list {
            guard let kty = element["kty"]?.stringValue, JWK.supportedKeyTypes.contains(kty) else { continue }
            keys.append(try JWK(json: element))
        }
        self.keys = keys
    }

    public init(keys: [JWK]) { self.keys = keys }

    /// The JWKS document for these keys.
    public var jsonValue: JSONValue { ["keys": .array(keys.map(\.jsonValue))] }

    /// The one key with `kid`, or nil when there is none or more than one (an ambiguous set
    /// must not let an attacker pick which key is tried).
    public func key(withID kid: String) -> JWK? {
        let matches = keys.filter { $0.keyID == kid }
        return matches.count == 1 ? matches[0] : nil
    }

    /// The RSA key named `kid`, permitted for RS256.
    /// - Throws: ``JWTError`` `.unknownKeyID`, `.keyMismatch`, or ``CryptoKeyError`` for a weak key.
    public func rsaKey(withID kid: String) throws -> RSAPublicKey {
        guard let jwk = key(withID: kid) else { throw JWTError(.unknownKeyID, detail: "no single key for kid") }
        guard jwk.permits(.rs256) else { throw JWTError(.keyMismatch, detail: "key not usable for RS256") }
        return try RSAPublicKey(jwk: jwk)
    }
}
