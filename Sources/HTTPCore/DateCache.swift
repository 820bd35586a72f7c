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
        var value = time_t(seconds)
        var parts = tm()
        gmtime_r(&value, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let text = "Date: \(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) "
            + "\(parts.tm_year + 1900) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT\r\n"
        return Array(text.utf8)
    }
}
