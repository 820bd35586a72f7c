import CryptoCore
import Foundation

extension UUID {
    /// A version 4 (random) UUID (RFC 9562 §5.4) from OpenSSL's generator, with no system call: Foundation's
    /// `UUID()` on Linux opens, reads and closes `/dev/urandom` on every call, three system calls per id on the
    /// sign-in path. Falls back to `UUID()` if the generator fails.
    public static func randomV4() -> UUID {
        guard let bytes = try? SecureRandom.bytes(count: 16) else { return UUID() }
        return UUID(uuid: (
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5],
            (bytes[6] & 0x0F) | 0x40, bytes[7],
            (bytes[8] & 0x3F) | 0x80, bytes[9], bytes[10], bytes[11],
            bytes[12], bytes[13], bytes[14], bytes[15]
        ))
    }
}
