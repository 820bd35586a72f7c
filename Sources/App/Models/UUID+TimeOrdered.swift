import CryptoCore
import Foundation

extension UUID {
    /// A version 7 UUID (RFC 9562 §5.7): 48 bits of Unix time in milliseconds, then 74 random bits from OpenSSL's
    /// generator. Ids made close in time sort (and are stored) next to each other, so a batch of sign-ins
    /// writes one primary-key index page instead of one random page per row; and no system call is made
    /// (Foundation's `UUID()` on Linux opens, reads and closes `/dev/urandom` per id). The creation time is
    /// readable from the id, to the millisecond. Falls back to `UUID()` if the generator fails.
    package static func timeOrdered(now: Date = Date()) -> UUID {
        guard let bytes = try? SecureRandom.bytes(count: timeOrderedRandomCount) else { return UUID() }
        return timeOrdered(now: now, random: bytes[...])
    }

    /// Random bytes `timeOrdered(now:random:)` takes (its first 6 and 2 more bits are replaced).
    static let timeOrderedRandomCount = 16

    /// `timeOrdered(now:)` with `random` (`timeOrderedRandomCount` bytes from `SecureRandom`) drawn by the caller,
    /// so that one generator call can serve several ids and a token.
    static func timeOrdered(now: Date, random: ArraySlice<UInt8>) -> UUID {
        precondition(random.count == timeOrderedRandomCount, "a time-ordered UUID takes 16 random bytes")
        var bytes = Array(random)
        let milliseconds = UInt64(max(0, now.timeIntervalSince1970 * 1000))
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - index))) }
        bytes[6] = (bytes[6] & 0x0F) | 0x70
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(bytes: bytes)
    }

    /// Whether the id has version 7 and the RFC 9562 variant, as `timeOrdered` makes them.
    var isTimeOrdered: Bool {
        uuid.6 >> 4 == 0x7 && uuid.8 >> 6 == 0b10
    }

    /// The UUID whose 16 bytes, in order, are `bytes`.
    init(bytes: some Collection<UInt8>) {
        precondition(bytes.count == 16, "a UUID is 16 bytes")
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: bytes) }
        self.init(uuid: value)
    }
}
