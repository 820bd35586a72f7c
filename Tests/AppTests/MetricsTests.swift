import Foundation
import HTTPCore
import TestSupport
import Testing
@testable import App
import Web

/// `GET /metrics` over real sockets: the token gate, the page's format, and counters moved by real traffic.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct MetricsTests {
    /// The SQLite writer's families, on the page only when SQLite serves.
    static let sqliteFamilies: [(String, String)] = PostgresCluster.testsUsePostgres ? [] : [
        ("siwa_sqlite_write_queue_depth", "gauge"), ("siwa_sqlite_write_transactions_total", "counter"),
        ("siwa_sqlite_writes_total", "counter"),
    ]

    static let token = "metrics-token-0123456789abcdef0123456789"

    static func with<T>(token: String? = MetricsTests.token, _ body: (TestApp) async throws -> T) async throws -> T {
        try await TestApp.with(configure: { $0.metricsToken = token }, body)
    }

    func scrape(_ app: TestApp) async throws -> String {
        let response = try await app.send(.GET, "/metrics", headers: ["Authorization": "Bearer \(Self.token)"])
        #expect(response.status == .ok)
        return response.text
    }

    /// The value of the sample line `series` (name and labels exactly as printed), nil when absent.
    func value(_ page: String, _ series: String) -> Double? {
        page.split(separator: "\n").first { $0.hasPrefix(series + " ") }
            .flatMap { Double($0.dropFirst(series.count + 1)) }
    }

    @Test func withoutATokenMetricsIsAnUnknownRoute() async throws {
        try await Self.with(token: nil) { app in
            let response = try await app.send(.GET, "/metrics", headers: ["Authorization": "Bearer \(Self.token)"])
            #expect(response.status == .notFound)
            #expect(try response.json()["error"] as? Bool == true)
            #expect(app.server.application.requestMetrics == nil)
        }
    }

    @Test func aMissingOrWrongTokenIs401WithAChallenge() async throws {
        try await Self.with { app in
            let missing = try await app.send(.GET, "/metrics")
            #expect(missing.status == .unauthorized)
            #expect(missing.headers["WWW-Authenticate"] == "Bearer realm=\"metrics\"")
            #expect(try missing.json()["error"] as? Bool == true)
            for header in ["Bearer \(Self.token)x", "Bearer \(Self.token.dropLast())", "Bearer wrong", "Basic \(Self.token)"] {
                let refused = try await app.send(.GET, "/metrics", headers: ["Authorization": header])
                #expect(refused.status == .unauthorized, "\(header)")
                #expect(refused.headers["WWW-Authenticate"]?.hasPrefix("Bearer realm=\"metrics\"") == true)
                #expect(!refused.text.contains("siwa_"))
            }
        }
    }

    @Test func theRightTokenGetsThePrometheusPage() async throws {
        try await Self.with { app in
            let response = try await app.send(.GET, "/metrics", headers: ["Authorization": "bearer \(Self.token)"])
            #expect(response.status == .ok)
            #expect(response.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8")
            let page = response.text
            for (name, kind) in [("siwa_http_requests_total", "counter"), ("siwa_http_request_duration_seconds", "histogram"),
                                 ("siwa_http_open_connections", "gauge"), ("siwa_http_accepted_connections_total", "counter"),
                                 ("siwa_http_refused_connections_total", "counter"),
                                 ("siwa_http_idle_connections_closed_at_limit_total", "counter"),
                                 ("siwa_jwks_fetches_total", "counter"), ("siwa_token_verifications_total", "counter"),
                                 ("siwa_apple_token_requests_total", "counter"),
                                 ("siwa_apple_request_duration_seconds", "histogram"), ("siwa_apple_connections", "gauge"),
                                 ("siwa_apple_requests_waiting", "gauge"),
                                 ("siwa_apple_connections_opened_total", "counter")] + Self.sqliteFamilies {
                #expect(page.contains("# HELP \(name) "), "\(name)")
                #expect(page.contains("# TYPE \(name) \(kind)\n"), "\(name)")
            }
            #expect((value(page, "siwa_http_open_connections") ?? 0) >= 1, "the scrape's own connection is open")
            #expect((value(page, "siwa_http_accepted_connections_total") ?? 0) >= 1)
            #expect(value(page, "siwa_http_refused_connections_total") == 0, "loopback clients are never refused")
            #expect(value(page, "siwa_http_idle_connections_closed_at_limit_total") == 0, "far from MAX_CONNECTIONS")
            #expect(PostgresCluster.testsUsePostgres || value(page, "siwa_sqlite_write_queue_depth") == 0)
            #expect(page.hasSuffix("\n"))
        }
    }

    @Test func signInFailedVerificationAndJWKSFetchMoveTheirCounters() async throws {
        try await Self.with { app in
            let before = try await scrape(app)
            #expect(value(before, "siwa_jwks_fetches_total{outcome=\"ok\"}") == 0)
            #expect(value(before, "siwa_token_verifications_total{result=\"ok\"}") == 0)
            let scrapes = "siwa_http_requests_total{method=\"GET\",route=\"/metrics\",status=\"200\"}"
            #expect(value(before, scrapes) == nil, "a scrape is counted once answered, so the first page cannot show itself")

            let signIn = try await app.sendJSON(.POST, "/api/users/siwa", ["token": try app.identityToken(email: "m@example.com")])
            #expect(signIn.status == .ok)
            let refused = try await app.sendJSON(.POST, "/api/users/siwa", [
                "token": try app.identityToken(audience: "com.example.someone-else"),
            ])
            #expect(refused.status == .unauthorized)
            let unknownPath = "/api/users/\(UUID().uuidString)/nothing"
            #expect(try await app.send(.GET, unknownPath).status == .notFound)

            let after = try await scrape(app)
            #expect(value(after, "siwa_jwks_fetches_total{outcome=\"ok\"}") == 1)
            #expect(value(after, "siwa_jwks_fetches_total{outcome=\"network_error\"}") == 0)
            #expect(value(after, "siwa_token_verifications_total{result=\"ok\"}") == 1)
            #expect(value(after, "siwa_token_verifications_total{result=\"wrong_audience\"}") == 1)
            #expect(value(after, "siwa_token_verifications_total{result=\"expired\"}") == 0)
            #expect(value(after, "siwa_http_requests_total{method=\"POST\",route=\"/api/users/siwa\",status=\"200\"}") == 1)
            #expect(value(after, "siwa_http_requests_total{method=\"POST\",route=\"/api/users/siwa\",status=\"401\"}") == 1)
            #expect(value(after, "siwa_http_requests_total{method=\"GET\",route=\"unmatched\",status=\"404\"}") == 1)
            #expect(value(after, scrapes) == 1)
            #expect(value(after, "siwa_http_request_duration_seconds_count{route=\"/api/users/siwa\"}") == 2)
            #expect(PostgresCluster.testsUsePostgres || (value(after, "siwa_sqlite_writes_total") ?? 0) >= 1)
            #expect(!after.contains(unknownPath), "labels carry route patterns, never raw paths")
        }
    }

    @Test func appleTokenEndpointCallsAreCountedByOutcome() async throws {
        try await Self.with { app in
            let exchanged = try await app.signInWithAuthorizationCode(subject: "001.metrics", email: "metrics@example.com")
            #expect(exchanged.status == .ok)
            let unknown = try await app.sendJSON(.POST, "/api/users/siwa", [
                "token": try app.identityToken(subject: "001.metrics"), "authorizationCode": "c-unknown",
            ])
            #expect(unknown.status == .badRequest)
            let deleted = try await app.sendJSON(.DELETE, "/api/users/me", [:], bearer: try exchanged.json()["value"] as? String)
            #expect(deleted.status == .noContent)
            let page = try await scrape(app)
            #expect(value(page, "siwa_apple_token_requests_total{endpoint=\"token\",outcome=\"ok\"}") == 1)
            #expect(value(page, "siwa_apple_token_requests_total{endpoint=\"token\",outcome=\"invalid_grant\"}") == 1)
            #expect(value(page, "siwa_apple_token_requests_total{endpoint=\"revoke\",outcome=\"ok\"}") == 1)
            #expect(value(page, "siwa_apple_token_requests_total{endpoint=\"revoke\",outcome=\"network_error\"}") == 0)
            // Durations: two token calls and one revocation, each in some bucket up to +Inf.
            #expect(value(page, "siwa_apple_request_duration_seconds_count{endpoint=\"token\"}") == 2)
            #expect(value(page, "siwa_apple_request_duration_seconds_bucket{endpoint=\"token\",le=\"+Inf\"}") == 2)
            #expect(value(page, "siwa_apple_request_duration_seconds_count{endpoint=\"revoke\"}") == 1)
            // The keys' fetches too (an audit found them missing), one at least for the sign-ins' tokens.
            #expect((value(page, "siwa_apple_request_duration_seconds_count{endpoint=\"keys\"}") ?? 0) >= 1)
            // The pool: keys and token calls share keep-alive connections, within APPLE_MAX_CONNECTIONS.
            // The stand-in is plain http: its connections are counted without a handshake (an audit found them
            // counted as full TLS handshakes).
            let opened = value(page, "siwa_apple_connections_opened_total{tls=\"none\"}") ?? 0
            #expect(opened >= 1 && opened <= Double(HTTPClient.Configuration.defaultMaxConnectionsPerOrigin))
            #expect(value(page, "siwa_apple_connections_opened_total{tls=\"full\"}") == 0)
            #expect(value(page, "siwa_apple_connections_opened_total{tls=\"resumed\"}") == 0)
            #expect(value(page, "siwa_apple_requests_waiting") == 0)
            #expect((value(page, "siwa_apple_connections{state=\"open\"}") ?? 0) >= (value(page, "siwa_apple_connections{state=\"idle\"}") ?? 0))
        }
    }

    /// Without the Apple key the server still fetches Apple's keys through its pool, and shows it. Found by an
    /// audit: the pool's families were missing then. The token endpoints' series are there too, at zero, so a rule
    /// over them works before the key is configured (Prometheus, "Instrumentation": avoid missing metrics).
    @Test func withoutTheAppleKeyThePoolTheKeysUseIsShown() async throws {
        try await TestApp.with(lifecycle: false, configure: { $0.metricsToken = Self.token }) { app in
            #expect(app.server.configuration.appleKey == nil)
            let signIn = try await app.sendJSON(.POST, "/api/users/siwa", ["token": try app.identityToken(email: "k@example.com")])
            #expect(signIn.status == .ok)
            let page = try await scrape(app)
            #expect(value(page, "siwa_apple_request_duration_seconds_count{endpoint=\"keys\"}") == 1)
            #expect(value(page, "siwa_apple_connections_opened_total{tls=\"none\"}") == 1, "\(page)")
            #expect(value(page, "siwa_apple_connections{state=\"idle\"}") == 1)
            #expect(value(page, "siwa_apple_requests_waiting") == 0)
            for endpoint in ["token", "revoke", "usermigrationinfo"] {
                #expect(value(page, "siwa_apple_token_requests_total{endpoint=\"\(endpoint)\",outcome=\"ok\"}") == 0,
                        "\(page)")
                #expect(value(page, "siwa_apple_request_duration_seconds_count{endpoint=\"\(endpoint)\"}") == 0)
            }
        }
    }

    @Test(arguments: [nil, "", "0123456789abcdef0123456789abcdef"])
    func acceptedTokens(_ value: String?) throws {
        let configuration = try Configuration(Environment(value.map { ["METRICS_TOKEN": $0] } ?? [:]))
        #expect(configuration.metricsToken == (value?.isEmpty == false ? value : nil))
    }

    @Test(arguments: ["0123456789abcdef0123456789abcde", "0123456789abcdef 0123456789abcdef", "0123456789abcdef0123456789abcdeé"])
    func refusedTokensNameTheVariable(_ value: String) {
        #expect {
            try Configuration(Environment(["METRICS_TOKEN": value]))
        } throws: { error in
            (error as? ConfigurationError).map { "\($0)" }?.contains("METRICS_TOKEN") == true
        }
    }
}
