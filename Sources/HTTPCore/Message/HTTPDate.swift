import Glibc

/// HTTP dates in IMF-fixdate form, `Sun, 06 Nov 1994 08:49:37 GMT` (RFC 9110 §5.6.7), as whole seconds since 1970.
package enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The seconds an IMF-fixdate can write, whose year has four digits: from `Mon, 01 Jan 0001 00:00:00 GMT` to
    /// `Fri, 31 Dec 9999 23:59:59 GMT`.
    package static let representable = -62_135_596_800...253_402_300_799

    /// The IMF-fixdate of `seconds` since 1970 (UTC), clamped to `representable`. Found by a review: a file whose
    /// modification time's year passed `Int32.max` ended the process on a `GET` (the year's sum overflowed).
    package static func format(secondsSince1970 seconds: Int) -> String {
        var value = time_t(min(max(seconds, representable.lowerBound), representable.upperBound))
        var parts = tm()
        gmtime_r(&value, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year = String(Int(parts.tm_year) + 1900)
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) "
            + String(repeating: "0", count: max(0, 4 - year.count)) + year
            + " \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// Parses an IMF-fixdate (surrounding spaces allowed) into seconds since 1970; nil for anything else: the
    /// obsolete RFC 850 and asctime forms are not accepted.
    package static func parse(_ text: some StringProtocol) -> Int? {
        let fields = text.split(separator: " ")
        guard fields.count == 6, fields[5] == "GMT", days.contains(String(fields[0].dropLast())),
              fields[0].last == ",", fields[1].count == 2, let day = Int32(fields[1]),
              let month = months.firstIndex(of: String(fields[2])), fields[3].count == 4, let year = Int32(fields[3])
        else { return nil }
        let clock = fields[4].split(separator: ":")
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
              let hour = Int32(clock[0]), let minute = Int32(clock[1]), let second = Int32(clock[2]),
              (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = Int32(month)
        parts.tm_mday = day
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        return Int(timegm(&parts))
    }
}
