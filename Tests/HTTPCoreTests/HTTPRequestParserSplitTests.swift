import Testing
@testable import HTTPCore

/// The parser's verdict must not depend on how the bytes were split into reads: an over-long line or head is
/// refused as such whether or not its LF has arrived. Found by Fuzz/FuzzHTTPRequest.
struct HTTPRequestParserSplitTests {
    func expectSameError(_ text: String, _ reason: HTTPParseError.Reason, limits: HTTPLimits) {
        let bytes = Array(text.utf8)
        for step in 1...bytes.count {
            switch HTTPRequestParser.parseAll(bytes, limits: limits, step: step) {
            case .success(let requests): Issue.record("step \(step): accepted \(requests.count) requests")
            case .failure(let error): #expect(error.reason == reason, "step \(step)")
            }
        }
    }

    @Test func overlongRequestLineEndingInBareLF() {
        let text = "GET /" + String(repeating: "a", count: 20) + " HTTP/1.1\nHost: a\r\n\r\n"
        expectSameError(text, .requestLineTooLong, limits: HTTPLimits(maxRequestLineLength: 16))
    }

    @Test func overlongLineWithoutSpaceIsInvalidMethodEvenIfALaterLineHasOne() {
        let text = String(repeating: "A", count: 24) + "\r\nHost: a\r\n\r\n"
        expectSameError(text, .invalidMethod, limits: HTTPLimits(maxRequestLineLength: 16))
    }

    @Test func oversizedHeadEndingInBareLF() {
        let text = "GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "b", count: 60) + "\n\r\n"
        expectSameError(text, .headerSectionTooLarge, limits: HTTPLimits(maxHeaderSectionSize: 64))
    }

    @Test func overlongRequestLineBeatsOversizedHead() {
        let text = "GET /" + String(repeating: "a", count: 40) + " HTTP/1.1\r\nHost: a\r\n\r\n"
        expectSameError(text, .requestLineTooLong, limits: HTTPLimits(maxRequestLineLength: 16, maxHeaderSectionSize: 32))
    }
}
