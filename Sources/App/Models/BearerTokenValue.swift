import CryptoCore
import Foundation
import JSON

/// The text of an API bearer token, as a client presents it.
///
/// A value is 32 bytes, base64url-encoded (RFC 4648 §5; 43 characters), as the contract asks: the token's id (16
/// bytes, a time-ordered UUID) masked with the first 16 bytes of the SHA-256 of the secret, followed by the secret
/// (`secretBytes` random bytes). The mask makes every byte of a value look random, so values issued together share
/// no prefix and do not show when they were issued. The server unmasks the id, finds the row by it, then compares
/// the SHA-256 of the whole value with the stored `value_hash` in constant time (the "split token" pattern). Token
/// ids are time-ordered, so issuing a token appends to the primary-key index; a unique index on the hash would cost
/// one random page per token.
///
/// Values issued before ids were embedded are 32 random bytes of the same length; they are still found by their
/// hash (see `SQLiteSchema.tokensByID`), whether or not their bytes happen to unmask to a version-7 id.
package struct BearerTokenValue: Sendable, Equatable {
    /// Bytes of the masked token id at the start of a value.
    package static let idBytes = 16
    /// Random bytes after the id: 128 bits an attacker must guess even knowing the id.
    package static let secretBytes = 16
    /// Characters in a value: base64url of `idBytes + secretBytes` (32) bytes, unpadded.
    package static let length = 43

    /// The token the value names when its first bytes unmask to a version-7 id; nil otherwise.
    package let id: UUID?
    /// SHA-256 of the value: what `tokens.value_hash` keeps.
    package let hash: [UInt8]

    /// Reads a presented value. Any text is accepted: one that names no id is looked up by its hash alone, and
    /// matches nothing unless it is a legacy value.
    package init(_ text: String) {
        hash = SHA256.hash(text)
        guard text.utf8.count == Self.length, let bytes = Base64URL.decode(text),
              bytes.count == Self.idBytes + Self.secretBytes
        else {
            id = nil
            return
        }
        let secret = Array(bytes.suffix(Self.secretBytes))
        let id = UUID(bytes: Self.mask(bytes.prefix(Self.idBytes), secret: secret))
        self.id = id.isTimeOrdered ? id : nil
    }

    /// The value of a new token: `id` and `secret` (`secretBytes` random bytes from `SecureRandom`).
    package static func text(id: UUID, secret: some Collection<UInt8>) -> String {
        precondition(secret.count == secretBytes, "a bearer token's secret is \(secretBytes) bytes")
        let secret = Array(secret)
        let idBytes = withUnsafeBytes(of: id.uuid) { Array($0) }
        return Base64URL.encode(mask(idBytes, secret: secret) + secret)
    }

    /// `bytes` XOR the first `idBytes` of SHA-256(`secret`): masks an id, and unmasks a masked one.
    private static func mask(_ bytes: some Collection<UInt8>, secret: [UInt8]) -> [UInt8] {
        zip(bytes, SHA256.hash(secret)).map { $0 ^ $1 }
    }
}
