import Foundation
import HTTPCore

/// How long a fetched JWKS is fresh, and how often it may be refetched.
package struct JWKSCachePolicy: Sendable {
    /// Shortest lifetime, whatever the response says (5 min).
    package var minimumLifetime: TimeInterval = 300
    /// Longest lifetime, whatever the response says (24 h).
    package var maximumLifetime: TimeInterval = 86_400
    /// Lifetime when the response has neither `Cache-Control: max-age` nor `Expires` (1 h).
    package var defaultLifetime: TimeInterval = 3_600
    /// Least time between two refetches of an expired set, and between two refetches for an unknown `kid`,
    /// successful or not (10 s). The two are counted apart: a set fetched a moment ago (at start, or because it
    /// expired) does not stop the one refetch an unknown `kid` asks for, so a key Apple has just rotated in works
    /// at once.
    package var minimumRefetchInterval: TimeInterval = 10

    package init() {}

    /// The freshness lifetime of a response (RFC 9111 §4.2.1), clamped to
    /// [`minimumLifetime`, `maximumLifetime`]: `max-age` minus `Age`; `no-store`/`no-cache` count as 0;
    /// else `Expires` minus `Date` (or `now`); else `defaultLifetime`.
    package func lifetime(for headers: HTTPHeaders, now: Date) -> TimeInterval {
        let raw = Self.freshness(headers, now: now) ?? defaultLifetime
        return min(max(raw, minimumLifetime), maximumLifetime)
    }

    private static func freshness(_ headers: HTTPHeaders, now: Date) -> TimeInterval? {
        let directives = headers.values(for: "Cache-Control")
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if directives.contains(where: { $0 == "no-store" || $0 == "no-cache" }) { return 0 }
        let ages = directives.compactMap { directive -> TimeInterval? in
            guard directive.hasPrefix("max-age=") else { return nil }
            let value = directive.dropFirst("max-age=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            guard !value.isEmpty, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return 0 }
            // A delta-seconds too large to represent means 2^31 (RFC 9111 §1.2.2).
            return value.count > 10 ? 2_147_483_648 : TimeInterval(Int(value) ?? 0)
        }
        if let maxAge = ages.min() {
            let age = headers["Age"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map(TimeInterval.init) ?? 0
            return maxAge - max(age, 0)
        }
        if let expiresText = headers["Expires"] {
            guard let expires = Self.parseHTTPDate(expiresText) else { return 0 }
            let date = headers["Date"].flatMap(Self.parseHTTPDate) ?? now
            return expires.timeIntervalSince(date)
        }
        return nil
    }

    /// IMF-fixdate of RFC 9110 §5.6.7, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func parseHTTPDate(_ text: String) -> Date? {
        HTTPDate.parse(text).map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }
}
