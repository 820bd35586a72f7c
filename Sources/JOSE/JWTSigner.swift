import CryptoCore
import JSON

/// Produces compact JWS (RFC 7515 §7.1) for JWTs: the stand-in's identity tokens, the client secret.
public enum JWTSigner {
    /// Signs `claims` with `key`.
    /// - Parameters:
    ///   - claims: the JWT claims set, serialised with sorted keys (deterministic output).
    ///   - keyID: the `kid` header member, if any.
    ///   - extraHeader: further header members; `alg` is always set from `key` and cannot be overridden.
    ///   - key: the signing key.
    /// - Returns: `header.payload.signature`.
    public static func sign(
        claims: JSONValue, keyID: String?, extraHeader: [String: JSONValue] = [:], key: JWSSigningKey
    ) throws -> String {
        var header = extraHeader
        header["alg"] = .string(key.algorithm.rawValue)
        if let keyID { header["kid"] = .string(keyID) }
        return try sign(header: JSONValue.object(header).serialized(), payload: claims.serialized(), key: key)
    }

    /// Signs arbitrary header and payload bytes as given. Tests use it to build malformed tokens;
    /// the header is not checked against `key`.
    public static func sign(header: [UInt8], payload: [UInt8], key: JWSSigningKey) throws -> String {
        let signingInput = Base64URL.encodeToBytes(header) + [UInt8(ascii: ".")] + Base64URL.encodeToBytes(payload)
        let signature = try key.signature(for: signingInput)
        return String(decoding: signingInput, as: UTF8.self) + "." + Base64URL.encode(signature)
    }
}
