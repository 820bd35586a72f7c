import Testing
@testable import HTTPCore

struct HTTPHeadersTests {
    @Test func lookupIsCaseInsensitive() {
        let headers: HTTPHeaders = ["Content-Type": "text/plain", "set-cookie": "a=1", "Set-Cookie": "b=2"]
        #expect(headers["content-type"] == "text/plain")
        #expect(headers.values(for: "SET-COOKIE") == ["a=1", "b=2"])
        #expect(headers["content-typf"] == nil)
        #expect(!HTTPHeaders.equalsIgnoringCase("a-b", "a\rb"))
        #expect(!HTTPHeaders.equalsIgnoringCase("[", "{"))
    }

    @Test func replaceOrAddRemovesEveryDuplicate() {
        var headers: HTTPHeaders = ["X-A": "1", "x-a": "2"]
        headers.replaceOrAdd(name: "X-A", value: "3")
        #expect(headers.values(for: "x-a") == ["3"])
    }
}
