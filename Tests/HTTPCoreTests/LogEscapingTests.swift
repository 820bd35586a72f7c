import Testing
@testable import HTTPCore

/// `LogEscaping.escape`: what a request brings cannot end a log line or fake one.
struct LogEscapingTests {
    @Test(arguments: [
        ("plain /path?q=1", "plain /path?q=1"),
        ("x\r\n2025-01-01 critical siwa: [App] admin login OK", "x\\r\\n2025-01-01 critical siwa: [App] admin login OK"),
        ("tab\there", "tab\\there"),
        ("nul\u{0}bell\u{7}esc\u{1B}[31m", "nul\\u{0}bell\\u{7}esc\\u{1b}[31m"),
        ("del\u{7F}", "del\\u{7f}"),
        ("nel\u{85}c1\u{9F}", "nel\\u{85}c1\\u{9f}"),
        ("ls\u{2028}ps\u{2029}", "ls\\u{2028}ps\\u{2029}"),
        ("a\\nb", "a\\\\nb"),
        ("café ünïcode ✓", "café ünïcode ✓"),
        ("", ""),
    ])
    func escapes(_ raw: String, _ logged: String) {
        #expect(LogEscaping.escape(raw) == logged)
    }

    @Test func noControlCharacterSurvivesAndSubstringsWork() {
        let every = String(String.UnicodeScalarView((0...0xA0).compactMap(Unicode.Scalar.init)))
        let escaped = LogEscaping.escape(every)
        #expect(!escaped.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(LogEscaping.escape("ab\ncd".prefix(3)) == "ab\\n")
    }
}
