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
        ("user\u{202E}nimda\u{202C} \u{2066}x\u{2069}\u{200F}", "user\\u{202e}nimda\\u{202c} \\u{2066}x\\u{2069}\\u{200f}"),
        ("a\\nb", "a\\\\nb"),
        ("café ünïcode ✓", "café ünïcode ✓"),
        ("", ""),
    ])
    func escapes(_ raw: String, _ logged: String) {
        #expect(LogEscaping.escape(raw) == logged)
    }

    /// A metadata value cannot pass for fields of its own: with a space, `=` or `"` it is quoted, its quotes
    /// escaped. Found by an audit: `error=x user_id=…` wrote a second `user_id` into the line.
    @Test(arguments: [
        ("user_cancelled_authorize", "user_cancelled_authorize"),
        ("x user_id=01a2 request-id=0000001", #""x user_id=01a2 request-id=0000001""#),
        ("a=b", #""a=b""#),
        (#"say "hi""#, #""say \"hi\"""#),
        ("line\nnext=1", #""line\nnext=1""#),
        (#"end\"#, #"end\\"#),
        ("", ""),
    ])
    func fieldsAreQuotedWhenTheyCouldSplit(_ raw: String, _ logged: String) {
        #expect(LogEscaping.field(raw) == logged)
    }

    @Test func noControlCharacterSurvivesAndSubstringsWork() {
        let every = String(String.UnicodeScalarView((0...0xA0).compactMap(Unicode.Scalar.init)))
        let escaped = LogEscaping.escape(every)
        #expect(!escaped.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(LogEscaping.escape("ab\ncd".prefix(3)) == "ab\\n")
    }

    /// A run of 40 characters or more of a token's alphabet, a whole segment or a part of one, could be a credential
    /// and is not logged; shorter runs and ids (UUIDs) are, escaped.
    @Test(arguments: [
        ("/api/users/me", "/api/users/me"),
        ("/api/users/eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIwMDEifQ.c2lnbmF0dXJlLWJ5dGVz", "/api/users/[redacted]"),
        ("/a/" + String(repeating: "A", count: 39) + "/b", "/a/" + String(repeating: "A", count: 39) + "/b"),
        ("/a/" + String(repeating: "A", count: 40), "/a/[redacted]"),
        ("/u/0192f1a2-3b4c-7d5e-8f60-718293a4b5c6", "/u/0192f1a2-3b4c-7d5e-8f60-718293a4b5c6"),
        ("/x/" + String(repeating: "b", count: 40) + "\n", "/x/[redacted]\\n"),
        ("/x/" + String(repeating: "b", count: 39) + "\n", "/x/" + String(repeating: "b", count: 39) + "\\n"),
        ("//" + String(repeating: "c", count: 45) + "//", "//[redacted]//"),
        // Beside `;`, `:`, `@` or `,` in a segment too. Found by a review: `/callback;code=…` was logged whole.
        ("/login/siwa/callback;code=" + String(repeating: "d", count: 40), "/login/siwa/callback;[redacted]"),
        ("/x/Bearer:" + String(repeating: "e", count: 43), "/x/Bearer:[redacted]"),
        ("/share/@" + String(repeating: "f", count: 40) + ",a", "/share/@[redacted],a"),
        ("/share/@" + String(repeating: "f", count: 39) + ",a", "/share/@" + String(repeating: "f", count: 39) + ",a"),
    ])
    func pathsKeepNoCredentialShapedSegment(_ raw: String, _ logged: String) {
        #expect(LogEscaping.path(raw) == logged)
    }

    /// A method or a media type shaped like a credential is not logged, nor echoed in an error's reason.
    @Test(arguments: [
        ("GET", "GET"), ("QUERY", "QUERY"), ("application/json", "application/json"),
        (String(repeating: "T", count: 43), "[redacted]"),
        (String(repeating: "t", count: 43) + "/json; charset=utf-8", "[redacted]/json; charset=utf-8"),
    ])
    func shortValuesKeepNoCredential(_ raw: String, _ logged: String) {
        #expect(LogEscaping.value(raw) == logged)
    }

    /// A credential anywhere in a value, between spaces or commas too, is redacted; what is around it is kept, and
    /// `redactingCredentials` escapes nothing (a reason's log line escapes it once).
    @Test func aCredentialAnywhereInAValueIsRedacted() {
        let token = "eyJ" + String(repeating: "x", count: 40)
        #expect(LogEscaping.redactingCredentials("gzip, \(token)") == "gzip, [redacted]")
        #expect(LogEscaping.redactingCredentials("Bearer \(token) é\u{85}") == "Bearer [redacted] é\u{85}")
        #expect(LogEscaping.value("Bearer \(token)\n") == "Bearer [redacted]\\n")
        #expect(LogEscaping.redactingCredentials("text/x\u{85}forged") == "text/x\u{85}forged")
    }
}
