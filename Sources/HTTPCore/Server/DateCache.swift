import Glibc
import Synchronization

/// The IMF-fixdate for the `Date` header (RFC 9110 §6.6.1, §5.6.7), formatted at most once per second.
final class DateCache: Sendable {
    private struct Entry {
        var second: Int = -1
        var field: [UInt8] = []
    }

    private let entry = Mutex(Entry())

    /// `Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n` for the current second.
    func headerLine() -> [UInt8] {
        let now = time(nil)
        return entry.withLock { entry in
            if entry.second != now {
                entry.second = now
                entry.field = Self.format(now)
            }
            return entry.field
        }
    }

    static func format(_ seconds: Int) -> [UInt8] {
        Array("Date: \(HTTPDate.format(secondsSince1970: seconds))\r\n".utf8)
    }
}
