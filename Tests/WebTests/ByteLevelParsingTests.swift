import Testing
@testable import Web

/// Forms and cookies are byte grammars (WHATWG URL §5.1, RFC 6265 §5.4): a delimiter followed by a combining
/// mark is still a delimiter, although Swift reads the two as one `Character`. Found by Fuzz/FuzzForm and
/// Fuzz/FuzzCookie.
struct ByteLevelParsingTests {
    @Test func formSplitsOnAmpersandBeforeCombiningMark() throws {
        let pairs = try URLEncodedForm.parse("a=1&\u{301}b=2"[...])
        #expect(pairs.map { "\($0.name)=\($0.value)" } == ["a=1", "\u{301}b=2"])
    }

    @Test func formSplitsOnEqualsBeforeCombiningMark() throws {
        let pairs = try URLEncodedForm.parse("a=\u{301}x"[...])
        #expect(pairs.map(\.name) == ["a"])
        #expect(pairs.map(\.value) == ["\u{301}x"])
    }

    @Test func cookieSplitsOnSemicolonAndEqualsBeforeCombiningMark() {
        let cookies = CookieParser.parse(["a=1;\u{301}b=2; c=\u{301}"])
        #expect(cookies == ["a": "1", "\u{301}b": "2", "c": "\u{301}"])
    }

    @Test func cookieTrimsBlankBeforeCombiningMarkAndUnquotesByBytes() {
        let cookies = CookieParser.parse(["a= \u{301}x", "b=\"\u{301}\""])
        #expect(cookies == ["a": "\u{301}x", "b": "\u{301}"])
    }
}
