import CryptoCore
import JSON

/// A JSON Web Key (RFC 7517 §4) holding a public RSA or EC key, as published in a JWKS.
///
/// Only the public members are read; `d` and the other private members are ignored.
public struct JWK: Sendable, Equatable {
    /// `kty` (RFC 7517 §4.1): "RSA" or "EC" here.
    public var keyType: String
    /// `kid` (RFC 7517 §4.5).
    public var keyID: String?
    /// `alg` (RFC 7517 §4.4): when present, the only algorithm the key may be used with.
    public var algorithm: String?
    /// `use` (RFC 7517 §4.2): when present, must be "sig" for verification.
    public var use: String?
    /// `key_ops` (RFC 7517 §4.3): when present, must contain "verify".
    public var keyOperations: [String]?
    /// Every member as received.
    public var members: [String: JSONValue]

    /// Key types this library understands; a JWKS member of any other type is skipped.
    public static let supportedKeyTypes: Set<String> = ["RSA", "EC"]

    /// Reads a JWK from a JSON object.
    /// - Throws: ``JWTError`` `.malformed` if it is not an object, lacks `kty`, or has
    ///   `kid`, `alg`, `use` or `key_ops` of the wrong type.
    public init(json: JSONValue) throws {
        guard case .object(let members) = json, let kty = members["kty"]?.stringValue else {
            throw JWTError(.malformed, detail: "JWK lacks kty")
        }
        keyType = kty
        keyID = try Self.optionalString(members, "kid")
        algorithm = try Self.optionalString(members, "alg")
        use = try Self.optionalString(members, "use")
        if let ops = members["key_ops"] {
            let names = ops.arrayValue?.compactMap(\.stringValue)
            guard let names, names.count == ops.arrayValue?.count else { throw JWTError(.malformed, detail: "key_ops is not an array of strings") }
            keyOperations = names
        }
        self.members = members
    }

    /// Reads a JWK from JSON bytes.
    public init(json: [UInt8]) throws {
        try self.init(json: JSONValue(joseJSON: json))
    }

    /// Builds a JWK from members; used when publishing our own keys.
    public init(members: [String: JSONValue]) throws {
        try self.init(json: .object(members))
    }

    /// The JSON object, as it would appear in a JWKS.
    public var jsonValue: JSONValue { .object(members) }

    /// Whether this key may verify signatures made with `alg`: matching `kty`, `use` absent or
    /// "sig", `key_ops` absent or containing "verify", `alg` absent or equal (RFC 7517 §4.2–4.4).
    public func permits(_ alg: JWSAlgorithm) -> Bool {
        let expectedType = alg == .rs256 ? "RSA" : "EC"
        guard keyType == expectedType else { return false }
        if let use, use != "sig" { return false }
        if let keyOperations, !keyOperations.contains("verify") { return false }
        if let algorithm, algorithm != alg.rawValue { return false }
        return true
    }

    /// The base64url member `name`, decoded strictly.
    func bytes(_ name: String) throws -> [UInt8] {
        guard let text = members[name]?.stringValue, let bytes = Base64URL.decode(text) else {
            throw JWTError(.malformed, detail: "JWK member \(name) missing or not base64url")
        }
        return bytes
    }

    private static func optionalString(_ members: [String: JSONValue], _ name: String) throws -> String? {
        guard let value = members[name] else { return nil }
        guard let string = value.stringValue else { throw JWTError(.malformed, detail: "JWK \(name) is not a string") }
        return string
    }
}
