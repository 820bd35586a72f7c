import Foundation
import HTTPCore
import Testing
@testable import App

/// The JSON routes answer errors as JSON whatever `Accept` prefers (README "The iOS flow": errors are
/// `{"error": true, "reason": "…"}`); only the web flow's pages and form posts turn them into HTML for a browser.
/// Found by schemathesis with a browser's Accept (Scripts/check-openapi): these were HTML pages.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct APIErrorFormatTests {
    static let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

    @Test(arguments: [
        (HTTPMethod.GET, "/api/users/me"), (.DELETE, "/api/users/me"), (.POST, "/api/users/logout"),
        (.POST, "/api/users/siwa"), (.POST, "/api/apple/notifications"), (.GET, "/metrics"),
        (.POST, "/login/siwa/popup"),
    ])
    func jsonRoutesAnswerJSONErrorsToABrowser(_ method: HTTPMethod, _ path: String) async throws {
        try await TestApp.with(lifecycle: false, configure: { $0.metricsToken = String(repeating: "m", count: 32) }) { app in
            let response = try await app.send(method, path, headers: [
                "Accept": Self.browser, "Content-Type": "application/json", "Authorization": "Bearer nope",
            ], body: Array("{}".utf8))
            #expect([400, 401].contains(response.status.code), "\(method) \(path): \(response.status)")
            #expect(response.headers["Content-Type"] == "application/json; charset=utf-8", "\(method) \(path)")
            let body = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
            #expect(body?["error"] as? Bool == true, "\(method) \(path)")
            #expect((body?["reason"] as? String)?.isEmpty == false, "\(method) \(path)")
        }
    }

    /// Found by audits against the README and the API document: the router's 404 and 405 below /api, and on the
    /// other JSON routes (`/metrics` without METRICS_TOKEN is a 404), were HTML pages to a browser.
    @Test(arguments: [
        (HTTPMethod.GET, "/api/users/nope", HTTPStatus.notFound), (.PUT, "/api/users/siwa", .methodNotAllowed),
        (.GET, "/api/apple/notifications", .methodNotAllowed), (.GET, "/api", .notFound),
        (.PUT, "/login/siwa/popup", .methodNotAllowed), (.GET, "/metrics", .notFound),
        (.POST, "/health", .methodNotAllowed), (.POST, "/ready", .methodNotAllowed),
        // Paths the router routes to /api and /health by their decoded segments. Found by a review: HTML pages.
        (.GET, "//api/users/me", .unauthorized), (.GET, "/%61pi/users/me", .unauthorized),
        (.GET, "/./api/users/me", .unauthorized), (.GET, "/x/../api/users/me", .unauthorized),
        (.GET, "//api/nope", .notFound), (.PUT, "//api/users/siwa", .methodNotAllowed), (.POST, "//health", .methodNotAllowed),
    ])
    func pathsNoRouteHasBelowTheAPIAnswerJSONToABrowser(_ method: HTTPMethod, _ path: String,
                                                        _ status: HTTPStatus) async throws {
        try await TestApp.with(lifecycle: false) { app in
            let response = try await app.send(method, path, headers: ["Accept": Self.browser])
            #expect(response.status == status, "\(method) \(path)")
            #expect(response.headers["Content-Type"] == "application/json; charset=utf-8", "\(method) \(path)")
            #expect(try response.json()["error"] as? Bool == true, "\(method) \(path)")
        }
    }

    /// Found by an audit against the API document: the JSON routes took form bodies (a valid token sent as a form
    /// signed in), and the form routes JSON. Each takes the media type it documents; the other is 415.
    @Test(arguments: [
        ("/api/users/siwa", "application/x-www-form-urlencoded", "token=x"),
        ("/api/apple/notifications", "application/x-www-form-urlencoded", "payload=x"),
        ("/login/siwa/popup", "application/x-www-form-urlencoded", "id_token=x&state=y"),
        ("/login/siwa/handle", "application/json", #"{"token":"x"}"#),
        ("/login/siwa/callback", "application/json", #"{"state":"x","id_token":"y"}"#),
    ])
    func eachRouteTakesTheMediaTypeItDocuments(_ path: String, _ contentType: String, _ body: String) async throws {
        try await TestApp.with(lifecycle: false) { app in
            let response = try await app.send(.POST, path, headers: ["Content-Type": contentType], body: Array(body.utf8))
            #expect(response.status == .unsupportedMediaType, "\(path): \(response.status) \(response.text)")
        }
    }

    /// A coded body cannot be read, on the sign-in route's own fast path too, and with the coding in a second
    /// `Content-Encoding` field. Found by a review: `POST /api/users/siwa` read a `br` body as if uncoded.
    @Test func aCodedBodyIsRefusedOnTheSignInRoute() async throws {
        try await TestApp.with(lifecycle: false) { app in
            let body = Array("{\"token\":\"\(try app.identityToken())\"}".utf8)
            for codings in [["br"], ["identity", "gzip"]] {
                var headers: HTTPHeaders = ["Content-Type": "application/json"]
                for coding in codings { headers.add(name: "Content-Encoding", value: coding) }
                let response = try await app.send(.POST, "/api/users/siwa", headers: headers, body: body)
                #expect(response.status == .unsupportedMediaType, "\(codings)")
                #expect(try response.json()["reason"] as? String == "Content-Encoding '\(codings.last ?? "")' is not "
                    + "supported; send the body uncompressed")
            }
            #expect(try await app.count("users") == 0)
            let plain = try await app.send(.POST, "/api/users/siwa", headers: [
                "Content-Type": "application/json", "Content-Encoding": "identity",
            ], body: body)
            #expect(plain.status == .ok)
        }
    }

    @Test func webFormPostsStillAnswerABrowserWithAPage() async throws {
        try await TestApp.with(lifecycle: false) { app in
            let response = try await app.send(.POST, "/login/siwa/handle", headers: [
                "Accept": Self.browser, "Content-Type": "application/x-www-form-urlencoded",
            ], body: Array("token=x".utf8))
            #expect(response.status == .unauthorized)
            #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
        }
    }
}
