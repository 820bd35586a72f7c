import CryptoCore
import Foundation
import JOSE

/// The text of an API bearer token, as a client presents it.
///
/// A value is the token's id followed by `secretBytes` random bytes, base64url-encoded together (RFC 4648 §5;
/// 64 characters). The server finds the row by the id, then compares the SHA-256 of the whole value with the
/// stored `value_hash` in constant time (the "split token" pattern). Token ids are time-ordered, so issuing a
/// token appends to the primary-key index; a unique index on the hash would cost one random page per token.
/// Values issued before ids were embedded (`legacyLength` characters: the random bytes alone) are still found by
/// their hash (see `KeyTokensByID`).
public struct BearerTokenValue: Sendable, Equatable {
    /// Random bytes in a value.
    public static let secretBytes = 32
    /// Characters in a value: base64url of 16 id bytes and `secretBytes`.
    public static let length = 64
    /// Characters in a value issued before ids were embedded: base64url of `secretBytes`.
    public static let legacyLength = 43

    /// The token the value names; nil for a legacy value.
    public let id: UUID?
    /// SHA-256 of the value: what `tokens.value_hash` keeps.
    public let hash: [UInt8]

    /// Reads a presented value. Any text is accepted: one that names no id is looked up by its hash alone, and
    /// matches nothing unless it is a legacy value.
    public init(_ text: String) {
        hash = SHA256.hash(text)
        guard text.utf8.count == Self.length, let bytes = Base64URL.decode(text), bytes.count == 16 + Self.secretBytes
        else {
            id = nil
            return
        }
        id = UUID(bytes: bytes.prefix(16))
    }

    /// The value of a new token: `id` and `secret` (`secretBytes` random bytes from `SecureRandom`).
    public static func text(id: UUID, secret: some Collection<UInt8>) -> String {
        precondition(secret.count == secretBytes, "a bearer token's secret is \(secretBytes) bytes")
        let idBytes = withUnsafeBytes(of: id.uuid) { Array($0) }
        return Base64URL.encode(idBytes + Array(secret))
    }
}
