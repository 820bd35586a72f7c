import Testing
@testable import Web

struct ScriptEscapingTests {
    @Test func plainTextIsQuotedAsIs() {
        #expect(ScriptEscaping.stringLiteral("dev.siwa.web") == #""dev.siwa.web""#)
        #expect(ScriptEscaping.stringLiteral("https://example.com/login/siwa/callback?a=1")
                == #""https://example.com/login/siwa/callback?a=1""#)
        #expect(ScriptEscaping.stringLiteral("") == #""""#)
        #expect(ScriptEscaping.stringLiteral("é–✓") == "\"é–✓\"")
    }

    @Test func nothingCanEndTheStringOrTheScriptElement() {
        #expect(ScriptEscaping.stringLiteral(#"a"b\c"#) == #""a\"b\\c""#)
        #expect(ScriptEscaping.stringLiteral("</script><!--") == #""\u003c/script\u003e\u003c!--""#)
        #expect(ScriptEscaping.stringLiteral("a&b") == #""a\u0026b""#)
        #expect(ScriptEscaping.stringLiteral("l1\nl2\r\t\u{0}\u{1F}\u{7F}")
                == #""l1\nl2\r\t\u0000\u001f\u007f""#)
        #expect(ScriptEscaping.stringLiteral("\u{2028}\u{2029}") == #""\u2028\u2029""#)
    }
}
