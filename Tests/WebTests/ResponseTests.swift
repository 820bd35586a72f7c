import Foundation
import HTTPCore
import Testing
@testable import Web

struct ResponseTests {
    @Test func handlersReturnStringsStatusesResponsesAndViews() async throws {
        let app = Application.fixture()
        app.get("s") { _ in "text" }
        app.get("st") { _ in HTTPStatus.accepted }
        app.get("r") { _ in Response(status: .created, headers: ["X-A": "1"], text: "made") }
        app.get("v") { _ in View(html: "<b>hi</b>") }
        let text = try await app.testing.send(.GET, "/s")
        #expect(text.headers["Content-Type"] == "text/plain; charset=utf-8")
        #expect(try await app.testing.send(.GET, "/st").status == .accepted)
        let made = try await app.testing.send(.GET, "/r")
        #expect(made.status == .created && made.headers["X-A"] == "1" && made.text == "made")
        let view = try await app.testing.send(.GET, "/v")
        #expect(view.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(view.text == "<b>hi</b>")
    }

    @Test func primitivesAndCollectionsAreContent() async throws {
        let app = Application.fixture()
        app.get("dict") { _ in ["status": "ok"] }
        app.get("int") { _ in 42 }
        app.get("strings") { _ in ["a", "b"] }
        for index in 0..<3 { app.get("n", "r\(index)") { _ in String(index) } }
        #expect(try await app.testing.send(.GET, "/dict").text == #"{"status":"ok"}"#)
        #expect(try await app.testing.send(.GET, "/int").text == "42")
        #expect(try await app.testing.send(.GET, "/strings").text == #"["a","b"]"#)
        #expect(try await app.testing.send(.GET, "/n/r2").text == "2")
    }

    @Test func redirectsDefaultToSeeOtherAndCannotSplitHeaders() {
        #expect(Response.redirect(to: "/").status == .seeOther)
        #expect(Response.redirect(to: "/a", type: .temporary).status == .temporaryRedirect)
        #expect(Response.redirect(to: "/a", type: .permanent).status == .permanentRedirect)
        let evil = Response.redirect(to: "/a\r\nSet-Cookie: x=1 é")
        #expect(evil.headers["Location"] == "/a%0D%0ASet-Cookie:%20x=1%20é")
    }

    @Test func jsonAndHTMLHelpers() throws {
        struct Health: Encodable { let status: String }
        let json = try Response.json(Health(status: "ok"), status: .created)
        #expect(json.status == .created)
        #expect(json.bodyBytes == Array(#"{"status":"ok"}"#.utf8))
        #expect(json.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(Response.html("<p>").headers["Content-Type"] == "text/html; charset=utf-8")
    }

    @Test func cookiesSerialiseEveryAttribute() throws {
        let cookie = HTTPCookie(name: "SIWA_STATE", value: "abc-123_", maxAge: 300,
                                expires: Date(timeIntervalSince1970: 784_111_777), path: "/", domain: "example.com",
                                secure: true, httpOnly: true, sameSite: .none)
        #expect(try cookie.serialized() == "SIWA_STATE=abc-123_; Max-Age=300; Expires=Sun, 06 Nov 1994 08:49:37 GMT; "
            + "Path=/; Domain=example.com; HttpOnly; Secure; SameSite=None")
        #expect(try HTTPCookie(name: "a", value: "", path: nil).serialized() == "a=")
        #expect(try HTTPCookie(name: "a", value: "b", sameSite: .lax).serialized() == "a=b; Path=/; SameSite=Lax")
    }

    @Test(arguments: ["a b", "a;b", "a,b", "a\"b", "a\\b", "é", "a\u{7F}"])
    func invalidCookieValuesAreRejected(value: String) {
        #expect(throws: CookieError.invalidValue(cookie: "n")) { try HTTPCookie(name: "n", value: value).serialized() }
    }

    @Test(arguments: ["", "a b", "a=b", "a;b", "a(b)", "ä"])
    func invalidCookieNamesAreRejected(name: String) {
        #expect(throws: CookieError.invalidName(name)) { try HTTPCookie(name: name, value: "v").serialized() }
    }

    @Test func sameSiteNoneNeedsSecureAndAttributesCannotInject() {
        #expect(throws: CookieError.sameSiteNoneRequiresSecure(cookie: "a")) {
            try HTTPCookie(name: "a", value: "b", sameSite: .none).serialized()
        }
        #expect(throws: CookieError.invalidAttribute(cookie: "a", attribute: "Path")) {
            try HTTPCookie(name: "a", value: "b", path: "/; Domain=evil").serialized()
        }
    }

    @Test func responseCookiesSetReplaceAndExpire() async throws {
        let app = Application.fixture()
        app.get("c") { _ in
            var response = Response(status: .ok)
            try response.cookies.set(HTTPCookie(name: "a", value: "1"))
            try response.cookies.set(HTTPCookie(name: "b", value: "2", httpOnly: true))
            try response.cookies.set(HTTPCookie(name: "a", value: "3"))
            response.cookies.expire("old")
            return response
        }
        let response = try await app.testing.send(.GET, "/c")
        #expect(response.setCookies == [
            "a=3; Path=/", "b=2; Path=/; HttpOnly",
            "old=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/; HttpOnly",
        ])
    }

    @Test func httpDatesRoundTrip() {
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(HTTPDate.format(secondsSince1970: Int(date.timeIntervalSince1970)) == "Tue, 14 Nov 2023 22:13:20 GMT")
        #expect(HTTPDate.parse("Tue, 14 Nov 2023 22:13:20 GMT") == Int(date.timeIntervalSince1970))
        #expect(HTTPDate.parse("Tuesday, 14-Nov-23 22:13:20 GMT") == nil)
        #expect(HTTPDate.parse("Tue, 14 Nov 2023 25:13:20 GMT") == nil)
    }

    /// Dates beyond what four digits of year can write are the nearest that can be written, never a trap (a year past
    /// `Int32.max` trapped); years below 1000 keep four digits.
    @Test func httpDatesAreClampedToFourDigitYears() {
        let last = "Fri, 31 Dec 9999 23:59:59 GMT", first = "Mon, 01 Jan 0001 00:00:00 GMT"
        #expect(HTTPDate.format(secondsSince1970: HTTPDate.representable.upperBound) == last)
        for seconds in [HTTPDate.representable.upperBound + 1, 67_768_036_191_676_799, Int.max] {
            #expect(HTTPDate.format(secondsSince1970: seconds) == last)
        }
        #expect(HTTPDate.format(secondsSince1970: HTTPDate.representable.lowerBound) == first)
        for seconds in [HTTPDate.representable.lowerBound - 1, Int.min] {
            #expect(HTTPDate.format(secondsSince1970: seconds) == first)
        }
        #expect(HTTPDate.format(secondsSince1970: -30_610_224_000) == "Wed, 01 Jan 1000 00:00:00 GMT")
        #expect(HTTPDate.format(secondsSince1970: -30_610_224_001) == "Tue, 31 Dec 0999 23:59:59 GMT")
        #expect(HTTPDate.parse(last) == HTTPDate.representable.upperBound)
        #expect(HTTPDate.parse(first) == HTTPDate.representable.lowerBound)
    }
}
