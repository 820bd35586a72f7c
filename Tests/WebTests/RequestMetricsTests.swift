import Foundation
import HTTPCore
import Testing
@testable import Web

/// Requests counted by method, route pattern and status through `Application.respond`, with bounded labels.
struct RequestMetricsTests {
    static func app(collecting: Bool = true, publicDirectory: String? = nil) throws -> Application {
        let app = Application.fixture()
        app.collectsMetrics = collecting
        if let publicDirectory { app.middleware.use(try FileMiddleware(publicDirectory: publicDirectory)) }
        app.get("users", ":id") { req in req.parameters.get("id") ?? "" }
        app.delete("users", ":id") { _ in Response(status: .noContent) }
        app.get("teapot") { _ -> Response in Response(status: HTTPStatus(code: 418)) }
        try app.boot()
        return app
    }

    static func page(_ app: Application) throws -> String {
        var page = MetricsText()
        try #require(app.requestMetrics).render(into: &page)
        return page.text
    }

    @Test func routeLabelIsThePatternNeverTheRawPath() async throws {
        let app = try Self.app()
        _ = try await app.testing.send(.GET, "/users/42")
        _ = try await app.testing.send(.GET, "/users/43")
        _ = try await app.testing.send(.DELETE, "/users/42")
        _ = try await app.testing.send(.HEAD, "/users/7")
        let page = try Self.page(app)
        #expect(page.contains("siwa_http_requests_total{method=\"GET\",route=\"/users/:id\",status=\"200\"} 2\n"))
        #expect(page.contains("siwa_http_requests_total{method=\"DELETE\",route=\"/users/:id\",status=\"204\"} 1\n"))
        #expect(page.contains("siwa_http_requests_total{method=\"HEAD\",route=\"/users/:id\",status=\"200\"} 1\n"))
        #expect(!page.contains("/users/42"))
    }

    @Test func unknownPathsMethodsAndStatusesShareBoundedLabels() async throws {
        let app = try Self.app()
        _ = try await app.testing.send(.GET, "/no/such/\(UUID().uuidString)")
        _ = try await app.testing.send(.GET, "/other/\(UUID().uuidString)")
        _ = try await app.testing.send(HTTPMethod(rawValue: "BREW"), "/users/1")
        _ = try await app.testing.send(.POST, "/users/1")
        _ = try await app.testing.send(.GET, "/teapot")
        let page = try Self.page(app)
        #expect(page.contains("siwa_http_requests_total{method=\"GET\",route=\"unmatched\",status=\"404\"} 2\n"))
        #expect(page.contains("siwa_http_requests_total{method=\"other\",route=\"unmatched\",status=\"501\"} 1\n"))
        #expect(page.contains("siwa_http_requests_total{method=\"POST\",route=\"unmatched\",status=\"405\"} 1\n"))
        #expect(page.contains("siwa_http_requests_total{method=\"GET\",route=\"/teapot\",status=\"other\"} 1\n"))
        #expect(!page.contains("BREW"))
    }

    @Test func everyRouteHasAHistogramAndObservationsLandInTheirBuckets() async throws {
        let app = try Self.app()
        let metrics = try #require(app.requestMetrics)
        let route = try #require(app.routes.firstIndex { $0.path.string == "/teapot" })
        _ = try await app.testing.send(.GET, "/teapot")
        metrics.record(routeIndex: route, servedFile: false, method: .GET, status: 200, nanoseconds: 500_000)
        metrics.record(routeIndex: route, servedFile: false, method: .GET, status: 200, nanoseconds: 6_000_000_000)
        let page = try Self.page(app)
        for label in ["/users/:id", "/teapot", "static", "unmatched"] {
            #expect(page.contains("siwa_http_request_duration_seconds_count{route=\"\(label)\"}"))
        }
        #expect(page.contains("siwa_http_request_duration_seconds_bucket{route=\"/teapot\",le=\"5\"} 2\n"))
        #expect(page.contains("siwa_http_request_duration_seconds_bucket{route=\"/teapot\",le=\"+Inf\"} 3\n"))
        #expect(page.contains("siwa_http_request_duration_seconds_count{route=\"/teapot\"} 3\n"))
        #expect(page.contains("siwa_http_request_duration_seconds_count{route=\"unmatched\"} 0\n"))
        let sumLine = try #require(page.split(separator: "\n").first { $0.hasPrefix("siwa_http_request_duration_seconds_sum{route=\"/teapot\"}") })
        let sum = try #require(Double(sumLine.split(separator: " ").last ?? ""))
        #expect(sum >= 6.0005 && sum < 66)
    }

    @Test func aBoundaryObservationCountsInItsOwnBucket() throws {
        let app = try Self.app()
        let metrics = try #require(app.requestMetrics)
        metrics.record(routeIndex: nil, servedFile: false, method: .GET, status: 404, nanoseconds: 500_000)
        metrics.record(routeIndex: nil, servedFile: false, method: .GET, status: 404, nanoseconds: 500_001)
        let page = try Self.page(app)
        #expect(page.contains("siwa_http_request_duration_seconds_bucket{route=\"unmatched\",le=\"0.0005\"} 1\n"))
        #expect(page.contains("siwa_http_request_duration_seconds_bucket{route=\"unmatched\",le=\"0.001\"} 2\n"))
    }

    @Test func filesServedByFileMiddlewareAreStatic() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("body{}".utf8).write(to: directory.appendingPathComponent("site.css"))
        let app = try Self.app(publicDirectory: directory.path)
        #expect(try await app.testing.send(.GET, "/site.css").status == .ok)
        #expect(try await app.testing.send(.GET, "/missing.css").status == .notFound)
        let page = try Self.page(app)
        #expect(page.contains("siwa_http_requests_total{method=\"GET\",route=\"static\",status=\"200\"} 1\n"))
        #expect(page.contains("siwa_http_requests_total{method=\"GET\",route=\"unmatched\",status=\"404\"} 1\n"))
    }

    @Test func nothingIsCollectedUnlessAsked() async throws {
        let app = try Self.app(collecting: false)
        _ = try await app.testing.send(.GET, "/users/1")
        #expect(app.requestMetrics == nil)
    }
}
