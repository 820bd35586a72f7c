import Foundation
import HTTPCore
import Testing
@testable import AppleID

/// Freshness lifetime rules (RFC 9111 §4.2.1) and their clamping to [5 min, 24 h].
struct JWKSCachePolicyTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: [
        ([], 3_600.0),
        ([("Cache-Control", "max-age=300")], 300),
        ([("Cache-Control", "max-age=299")], 300),
        ([("Cache-Control", "max-age=86400")], 86_400),
        ([("Cache-Control", "max-age=86401")], 86_400),
        ([("Cache-Control", "public, max-age=\"7200\", must-revalidate")], 7_200),
        ([("Cache-Control", "max-age=7200"), ("Age", "3600")], 3_600),
        ([("Cache-Control", "no-store")], 300),
        ([("Cache-Control", "no-cache, max-age=7200")], 300),
        ([("Cache-Control", "max-age=banana")], 300),
        ([("Cache-Control", "max-age=99999999999999999999")], 86_400),
        ([("Cache-Control", "public")], 3_600),
        ([("Expires", "Thu, 15 Jan 2027 10:00:00 GMT"), ("Date", "Thu, 15 Jan 2027 08:00:00 GMT")], 7_200),
        ([("Expires", "0")], 300),
    ] as [([(String, String)], TimeInterval)])
    func lifetime(_ fields: [(String, String)], _ expected: TimeInterval) {
        let headers = HTTPHeaders(fields.map { (name: $0.0, value: $0.1) })
        #expect(JWKSCachePolicy().lifetime(for: headers, now: now) == expected)
    }

    @Test func expiresRelativeToNowWithoutDate() throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let headers: HTTPHeaders = ["Expires": formatter.string(from: now.addingTimeInterval(1_800))]
        #expect(JWKSCachePolicy().lifetime(for: headers, now: now) == 1_800)
    }
}
