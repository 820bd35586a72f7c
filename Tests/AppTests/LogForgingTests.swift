import HTTPCore
import TestSupport
import Testing
@testable import App

/// What a request brings reaches the log with its control characters escaped (`LogEscaping`): a client cannot end
/// a log line and write one of its own, through Apple's `error` field or through a header an error quotes.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct LogForgingTests {
    static let forged = "user_cancelled_authorize\r\n2026-01-01T00:00:00+0000 critical siwa: [App] admin login OK"

    @Test func callbackErrorCannotForgeALogLine() async throws {
        let log = LogCapture()
        try await TestApp.with(logger: log.logger()) { app in
            let state = try #require(try await app.send(.GET, "/login").cookieValue("SIWA_STATE"))
            let callback = try await app.sendForm("/login/siwa/callback", [("state", state), ("error", Self.forged)],
                                                  cookies: ["SIWA_STATE": state])
            #expect(callback.status == .seeOther)
            // `LogCapture` prints metadata as Swift string literals: the escaped value's backslashes show doubled,
            // where a raw CR LF would show as `\r\n`; with its spaces the value is quoted (`LogEscaping.field`).
            let line = try #require(log.all.first { $0.contains("apple_error") })
            #expect(line.contains(#"apple_error=\"user_cancelled_authorize\\r\\n2026-01-01T00:00:00+0000 critical"#))
            #expect(!line.contains("\r") && !line.contains("\n"))
        }
    }

    /// A header value may carry obs-text (RFC 9110 §5.5), and so a C1 control such as NEL (U+0085), which some log
    /// viewers take for a line end. The 415 quotes the Content-Type; its log line shows the NEL escaped.
    @Test func aQuotedHeaderValueIsEscapedInTheErrorLine() async throws {
        let log = LogCapture()
        try await TestApp.with(logger: log.logger()) { app in
            let response = try await app.send(.POST, "/api/users/siwa", headers: ["Content-Type": "text/x\u{85}forged"],
                                              body: Array("{}".utf8))
            #expect(response.status == .unsupportedMediaType)
            let line = try #require(log.all.first { $0.contains("-> 415") })
            #expect(line.contains(#"text/x\u{85}forged"#))
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        }
    }
}
