import HTTPCore
import Logging
import Synchronization
import Testing
@testable import Web

struct ErrorMiddlewareTests {
    struct Leaky: Error, CustomStringConvertible { var description: String { "database unreachable" } }

    @Test func abortShowsItsReasonStatusAndHeaders() async throws {
        let app = Application.fixture()
        app.get("a") { _ -> String in
            throw Abort(.unauthorized, reason: "Invalid token", headers: ["WWW-Authenticate": "Bearer"])
        }
        let response = try await app.testing.send(.GET, "/a")
        #expect(response.status == .unauthorized)
        #expect(response.headers["WWW-Authenticate"] == "Bearer")
        #expect(response.headers["Cache-Control"] == "no-store")
        #expect(response.text == #"{"error":true,"reason":"Invalid token"}"#)
    }

    /// A 401 whose error names no challenge gets the application's (RFC 9110 §15.5.2); one that names its own keeps
    /// it, and other statuses get none.
    @Test func a401WithoutAChallengeGetsTheApplications() async throws {
        let app = Application.fixture()
        app.unauthorizedChallenge = #"Bearer realm="test""#
        app.get("bare") { _ -> String in throw Abort(.unauthorized, reason: "Refused") }
        app.get("own") { _ -> String in
            throw Abort(.unauthorized, reason: "Refused", headers: ["WWW-Authenticate": #"Bearer error="invalid_token""#])
        }
        app.get("forbidden") { _ -> String in throw Abort(.forbidden, reason: "No") }
        #expect(try await app.testing.send(.GET, "/bare").headers["WWW-Authenticate"] == #"Bearer realm="test""#)
        let own = try await app.testing.send(.GET, "/own")
        #expect(own.headers.values(for: "WWW-Authenticate") == [#"Bearer error="invalid_token""#])
        #expect(try await app.testing.send(.GET, "/forbidden").headers["WWW-Authenticate"] == nil)
    }

    @Test func unknownErrorsAre500WithAGenericReasonAndAreLogged() async throws {
        let lines = LogCapture()
        let app = Application(logger: Logger(label: "t") { _ in lines })
        app.get("boom") { _ -> String in throw Leaky() }
        let response = try await app.testing.send(.GET, "/boom", headers: ["Cookie": "session=SECRETVALUE"])
        #expect(response.status == .internalServerError)
        #expect(try response.decode(ErrorBody.self) == ErrorBody(error: true, reason: "Something went wrong."))
        #expect(!response.text.contains("database"))
        let logged = lines.messages.joined(separator: "\n")
        #expect(logged.contains("Leaky: database unreachable"))
        #expect(!logged.contains("SECRETVALUE"))
    }

    @Test func accessLogHasPathAndStatusButNoQuery() async throws {
        let lines = LogCapture()
        let app = Application(logger: Logger(label: "t") { _ in lines })
        app.get("callback") { _ in "ok" }
        _ = try await app.testing.send(.GET, "/callback?code=SECRETCODE&state=s")
        let line = try #require(lines.messages.last)
        #expect(line.hasPrefix("GET /callback 200 "))
        #expect(!line.contains("SECRETCODE"))
    }

    /// Reasons and descriptions may quote what the request sent; their log lines show its control characters
    /// escaped, so none can end the line and forge another.
    @Test func requestValuesInErrorLinesHaveControlCharactersEscaped() async throws {
        struct Quoting: Error, CustomStringConvertible { var value: String; var description: String { "got \(value)" } }
        let lines = LogCapture()
        let app = Application(logger: Logger(label: "t") { _ in lines })
        app.get("abort") { req -> String in throw Abort(.badRequest, reason: "bad '\(req.headers["X-V"] ?? "")'") }
        app.get("boom") { req -> String in throw Quoting(value: req.headers["X-V"] ?? "") }
        let forged = "v\r\ncritical forged\u{85}line"
        #expect(try await app.testing.send(.GET, "/abort", headers: ["X-V": forged]).status == .badRequest)
        #expect(try await app.testing.send(.GET, "/boom", headers: ["X-V": forged]).status == .internalServerError)
        let quoted = lines.messages.filter { $0.contains("forged") }
        #expect(quoted.count == 2)
        for line in quoted {
            #expect(line.contains(#"v\r\ncritical forged\u{85}line"#))
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        }
    }

    /// Found by an audit: a token sent as the method or the media type was echoed whole in the 501's and the 415's
    /// reasons and logged, the 501 at level error. Both are redacted, and a client's 501 is not the server's error.
    @Test func aCredentialSentAsTheMethodOrMediaTypeIsNeitherEchoedNorLogged() async throws {
        struct Body: Decodable { var x: Int }
        let lines = LogCapture()
        let app = Application(logger: Logger(label: "t") { _ in lines })
        app.post("json") { req -> String in _ = try req.content.decode(Body.self, accepting: .json); return "ok" }
        let token = "eyJhbGciOiJSUzI1NiJ9" + String(repeating: "A", count: 40)
        let method = try await app.testing.send(HTTPMethod(rawValue: token), "/json")
        #expect(method.status == .notImplemented)
        #expect(try method.decode(ErrorBody.self).reason == "The method [redacted] is not implemented")
        let media = try await app.testing.send(.POST, "/json", headers: ["Content-Type": token + "/json"],
                                               body: Array("{}".utf8))
        #expect(media.status == .unsupportedMediaType)
        #expect(!media.text.contains(token.lowercased()) && media.text.contains("[redacted]/json"), "\(media.text)")
        #expect(!lines.messages.isEmpty)
        #expect(!lines.messages.contains { $0.lowercased().contains(token.lowercased()) }, "\(lines.messages)")
        #expect(lines.levels.allSatisfy { $0 != .error }, "\(lines.levels)")
    }

    @Test func customAbortErrorsAreHonoured() async throws {
        struct Teapot: AbortError { var status: HTTPStatus { 418 }; var reason: String { "short and stout" } }
        let app = Application.fixture()
        app.get("tea") { _ -> String in throw Teapot() }
        let response = try await app.testing.send(.GET, "/tea")
        #expect(response.status.code == 418)
        #expect(try response.decode(ErrorBody.self).reason == "short and stout")
    }

    /// HTML only when `Accept` names `text/html` and gives it a higher quality than JSON (RFC 9110 §12.5.1); `q=0`
    /// refuses it (§12.4.2). Found by an audit: `text/html;q=0, */*` got the HTML page.
    @Test(arguments: [
        ("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", true),
        ("text/html", true),
        ("TEXT/HTML ; Q=1", true),
        ("application/json;q=0.5, text/html", true),
        ("text/html, */*;q=0.1", true),
        ("text/html, application/xhtml+xml, image/jxr, */*", true),
        (nil, false),
        ("*/*", false),
        ("text/*", false),
        ("text/html;q=0, */*", false),
        ("text/html;q=0", false),
        ("text/html, application/json", false),
        ("text/html;q=0.1, application/json", false),
        ("text/html;q=0.5, application/problem+json;q=0.8", false),
        ("text/html;q=0.5, */*", false),
        ("text/html;q=2, application/json;q=0.1", false),
        ("text/html;q=abc", false),
    ] as [(String?, Bool)])
    func htmlIsPreferredByQuality(_ accept: String?, _ html: Bool) {
        #expect(MediaType.prefersHTML(accept: accept) == html, "\(accept ?? "no Accept")")
    }

    @Test func htmlWhenTheClientPrefersIt() async throws {
        let app = Application.fixture()
        app.get("x") { _ -> String in throw Abort(.forbidden, reason: "<nope & never>") }
        let browser = try await app.testing.send(.GET, "/x", headers: ["Accept": "text/html,application/xhtml+xml,*/*;q=0.8"])
        #expect(browser.status == .forbidden)
        #expect(browser.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(browser.text.contains("&lt;nope &amp; never&gt;"))
        let both = try await app.testing.send(.GET, "/x", headers: ["Accept": "text/html, application/json"])
        #expect(both.headers["Content-Type"] == "application/json; charset=utf-8")
        let notFound = try await app.testing.send(.GET, "/missing", headers: ["Accept": "text/html"])
        #expect(notFound.status == .notFound)
        #expect(notFound.text.contains("<h1>404 Not Found</h1>"))
    }

    /// Found by schemathesis with a browser's Accept: the API's errors were HTML pages, not the documented JSON.
    @Test func routesBehindJSONErrorsMiddlewareAnswerJSONToABrowser() async throws {
        let app = Application.fixture()
        app.grouped(JSONErrorsMiddleware()).get("api") { _ -> String in throw Abort(.unauthorized, reason: "no") }
        app.get("page") { _ -> String in throw Abort(.unauthorized, reason: "no") }
        let accept: HTTPHeaders = ["Accept": "text/html,application/xhtml+xml,*/*;q=0.8"]
        let api = try await app.testing.send(.GET, "/api", headers: accept)
        #expect(api.status == .unauthorized)
        #expect(api.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(try api.decode(ErrorBody.self) == ErrorBody(error: true, reason: "no"))
        let page = try await app.testing.send(.GET, "/page", headers: accept)
        #expect(page.headers["Content-Type"] == "text/html; charset=utf-8")
    }

    /// Below `jsonErrorPaths` the router's own 404 and 405, which no route's middleware sees, are JSON as well.
    @Test func errorsBelowAJSONErrorPathAreJSONToABrowserIncluding404And405() async throws {
        let app = Application.fixture()
        app.jsonErrorPaths = ["/api"]
        app.get("api", "users", "me") { _ in "me" }
        app.get("apiary") { _ -> String in throw Abort(.unauthorized, reason: "no") }
        let accept: HTTPHeaders = ["Accept": "text/html,application/xhtml+xml,*/*;q=0.8"]
        for (method, path, status) in [(HTTPMethod.GET, "/api", HTTPStatus.notFound), (.GET, "/api/nope", .notFound),
                                       (.PUT, "/api/users/me", .methodNotAllowed)] {
            let response = try await app.testing.send(method, path, headers: accept)
            #expect(response.status == status, "\(method) \(path)")
            #expect(response.headers["Content-Type"] == "application/json; charset=utf-8", "\(method) \(path)")
            #expect(try response.decode(ErrorBody.self).error, "\(method) \(path)")
        }
        for (path, status) in [("/apiary", HTTPStatus.unauthorized), ("/nope", .notFound)] {
            let page = try await app.testing.send(.GET, path, headers: accept)
            #expect(page.status == status, "\(path)")
            #expect(page.headers["Content-Type"] == "text/html; charset=utf-8", "a page: \(path)")
        }
    }

    @Test func aJSONErrorPathCoversWholeSegmentsOnly() {
        #expect(ErrorRenderer.isRoutedBelowJSONErrorPath(["api", "users", "me"], ["/health", "/api"]))
        #expect(ErrorRenderer.isRoutedBelowJSONErrorPath(["api"], ["/api"]))
        #expect(!ErrorRenderer.isRoutedBelowJSONErrorPath(["apix"], ["/api"]))
        #expect(!ErrorRenderer.isRoutedBelowJSONErrorPath([], ["/api"]))
        #expect(!ErrorRenderer.isRoutedBelowJSONErrorPath(["login"], ["/"]))
        #expect(!ErrorRenderer.isRoutedBelowJSONErrorPath(nil, ["/api"]))
        #expect(ErrorRenderer.isBelowJSONErrorPath("/api", ["/api"]))
        #expect(ErrorRenderer.isBelowJSONErrorPath("/api/", ["/api"]))
        #expect(ErrorRenderer.isBelowJSONErrorPath("/api/users/me", ["/other", "/api"]))
        #expect(!ErrorRenderer.isBelowJSONErrorPath("/apix", ["/api"]))
        #expect(!ErrorRenderer.isBelowJSONErrorPath("/ap", ["/api"]))
        #expect(!ErrorRenderer.isBelowJSONErrorPath("/", ["/api"]))
        #expect(!ErrorRenderer.isBelowJSONErrorPath("/api", []))
    }

    /// The access line names the client: the peer, or with `trustProxy` the nearest X-Forwarded-For hop (README
    /// "Production behind nginx": the client's address for the rate limiter and the logs). Found by an audit: no
    /// log line carried an address.
    @Test(arguments: [false, true])
    func theAccessLineNamesTheClientsAddress(trustProxy: Bool) async throws {
        let lines = LogCapture()
        let app = Application(trustProxy: trustProxy, logger: Logger(label: "t") { _ in lines })
        app.get("a") { _ in "ok" }
        _ = try await app.testing.send(.GET, "/a", headers: ["X-Forwarded-For": "198.51.100.7, 203.0.113.5"])
        let access = try #require(lines.messages.first { $0.hasPrefix("GET /a 200") })
        #expect(access.hasSuffix(trustProxy ? " ms from 203.0.113.5" : " ms from 127.0.0.1:50000"), "\(access)")
    }

    /// A nearest hop that is not an address (any text, up to 64 KiB) is not taken: the peer is named. Found by a
    /// black-box review. An address with a port, or IPv6 in brackets, is.
    @Test(arguments: [("1.1.1.1, evil value <script>", "127.0.0.1:50000"),
                      ("1.1.1.1, " + String(repeating: "8", count: 20_000), "127.0.0.1:50000"),
                      ("203.0.113.5:4711", "203.0.113.5:4711"), ("[2001:db8::1]:4711", "[2001:db8::1]:4711"),
                      ("2001:db8::2", "2001:db8::2"),
                      ("203.0.113.60:not-a-port user_id=forged", "127.0.0.1:50000"),
                      ("[2001:db8::1]trailing junk", "127.0.0.1:50000"), ("198.51.100.7%run1 user_id=x", "127.0.0.1:50000"),
                      ("203.0.113.60:123456", "127.0.0.1:50000")])
    func aForwardedValueThatIsNoAddressIsNotTaken(_ forwarded: String, _ named: String) async throws {
        let lines = LogCapture()
        let app = Application(trustProxy: true, logger: Logger(label: "t") { _ in lines })
        app.get("a") { _ in "ok" }
        _ = try await app.testing.send(.GET, "/a", headers: ["X-Forwarded-For": forwarded])
        let access = try #require(lines.messages.first { $0.hasPrefix("GET /a 200") })
        #expect(access.hasSuffix(" ms from \(named)"), "\(access.prefix(200))")
    }

    @Test func htmlErrorPagesUseTheErrorTemplate() async throws {
        let app = Application.fixture()
        app.views = try ViewRenderer(templates: ["error": "<p>{{status}} {{title}}: {{reason}}</p>"])
        app.get("login") { _ -> View in throw Abort(.badRequest, reason: "a<b") }
        let response = try await app.testing.send(.GET, "/login", headers: ["Accept": "text/html"])
        #expect(response.text == "<p>400 Bad Request: a&lt;b</p>")
    }

    @Test func decodingErrorsThrownByHandlersAre400() async throws {
        struct Thing: Decodable { let id: Int }
        let app = Application.fixture()
        app.get("d") { _ -> String in
            _ = try JSONCoding.decoder().decode(Thing.self, from: .init("{}".utf8))
            return ""
        }
        let response = try await app.testing.send(.GET, "/d")
        #expect(response.status == .badRequest)
        #expect(try response.decode(ErrorBody.self).reason == "Missing field 'id'")
    }

    @Test func bootFailureIsA500NotACrash() async throws {
        let app = Application.fixture()
        app.get("a") { _ in "1" }
        app.get("a") { _ in "2" }
        let response = try await app.testing.send(.GET, "/a")
        #expect(response.status == .internalServerError)
    }
}

/// A log handler that keeps the messages it receives.
final class LogCapture: LogHandler, Sendable {
    private let stored = Mutex<[(level: Logger.Level, message: String)]>([])
    var messages: [String] { stored.withLock { $0.map(\.message) } }
    var levels: [Logger.Level] { stored.withLock { $0.map(\.level) } }
    var metadata: Logger.Metadata {
        get { [:] }
        set {}
    }
    var logLevel: Logger.Level {
        get { .trace }
        set {}
    }
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { nil }
        set {}
    }
    func log(event: LogEvent) {
        stored.withLock { $0.append((event.level, event.message.description)) }
    }
}
