#if canImport(Glibc)
import CryptoCore
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A JWS in compact serialisation (RFC 7515 §7.1), split and decoded but not yet verified.
package struct JWS: Sendable {
    /// The decoded protected header.
    package let header: JOSEHeader
    /// The decoded payload.
    package let payload: [UInt8]
    /// The decoded signature.
    package let signature: [UInt8]
    /// `BASE64URL(header) || '.' || BASE64URL(payload)` exactly as received (RFC 7515 §5.2 step 8).
    package let signingInput: [UInt8]

    /// Splits and decodes a compact JWS.
    /// - Parameters:
    ///   - compact: `header.payload.signature`, each part strict base64url.
    ///   - limits: size limits checked before decoding.
    /// - Throws: ``JWTError`` `.malformed` unless there are exactly three parts, each strict
    ///   base64url, within `limits`, with a JSON-object header.
    package init(compact: String, limits: JWSLimits = .default) throws {
        var compact = compact
        let parts = try compact.withUTF8 { try Self.split($0, limits: limits, decodingSignature: true) }
        header = parts.header
        payload = parts.payload
        signature = parts.signature
        signingInput = parts.signingInput
    }

    /// The header and payload of a compact JWS whose signature the caller does not check: an ID token received
    /// from the token endpoint over TLS, whose issuer TLS vouches for (OpenID Connect Core §3.1.3.7, step 6).
    /// The same checks as `init(compact:limits:)`, except that the signature is not decoded.
    package static func unverifiedContent(compact: String, limits: JWSLimits = .default) throws
        -> (header: JOSEHeader, payload: [UInt8])
    {
        var compact = compact
        let parts = try compact.withUTF8 { try split($0, limits: limits, decodingSignature: false) }
        return (parts.header, parts.payload)
    }

    /// The three parts, decoded; the signature and signing input empty unless `decodingSignature`.
    private static func split(
        _ bytes: UnsafeBufferPointer<UInt8>, limits: JWSLimits, decodingSignature: Bool
    ) throws -> (header: JOSEHeader, payload: [UInt8], signature: [UInt8], signingInput: [UInt8]) {
        guard bytes.count <= limits.maximumTokenBytes else { throw JWTError(.malformed, detail: "token too long") }
        guard let base = bytes.baseAddress else { throw JWTError(.malformed, detail: "empty token") }
        func dot(after start: Int) -> Int? {
            guard start < bytes.count, let found = memchr(base + start, Int32(UInt8(ascii: ".")), bytes.count - start) else {
                return nil
            }
            return UnsafeRawPointer(found) - UnsafeRawPointer(base)
        }
        guard let first = dot(after: 0), let second = dot(after: first + 1), dot(after: second + 1) == nil else {
            throw JWTError(.malformed, detail: "not three parts")
        }
        let headerPart = UnsafeBufferPointer(rebasing: bytes[..<first])
        let payloadPart = UnsafeBufferPointer(rebasing: bytes[(first + 1)..<second])
        let signaturePart = UnsafeBufferPointer(rebasing: bytes[(second + 1)...])
        guard !headerPart.isEmpty, !signaturePart.isEmpty else {
            throw JWTError(.malformed, detail: "empty header or signature")
        }
        guard headerPart.count <= (limits.maximumHeaderBytes * 4 + 2) / 3,
              signaturePart.count <= (limits.maximumSignatureBytes * 4 + 2) / 3
        else { throw JWTError(.malformed, detail: "header or signature too long") }
        guard let headerBytes = Base64URL.decode(buffer: headerPart),
              let payload = Base64URL.decode(buffer: payloadPart)
        else { throw JWTError(.malformed, detail: "invalid base64url") }
        let header = try JOSEHeader(json: headerBytes)
        guard decodingSignature else { return (header, payload, [], []) }
        guard let signature = Base64URL.decode(buffer: signaturePart) else {
            throw JWTError(.malformed, detail: "invalid base64url")
        }
        return (header, payload, signature, Array(UnsafeBufferPointer(rebasing: bytes[..<second])))
    }

    /// Checks `key` fits the header's algorithm and verifies the signature (RFC 7515 §5.2).
    /// Call ``JOSEHeader/checkPolicy(allowing:)`` first; this refuses a key of another algorithm.
    /// - Throws: ``JWTError`` `.keyMismatch` or `.badSignature`.
    package func verify(with key: some JWSVerifyingKey) throws {
        guard header.algorithm == key.jwsAlgorithm.rawValue else {
            throw JWTError(.keyMismatch, detail: "key is for \(key.jwsAlgorithm.rawValue)")
        }
        guard key.isValidSignature(signature, for: signingInput) else {
            throw JWTError(.badSignature, detail: "signature does not verify")
        }
    }
}
