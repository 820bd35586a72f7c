import AppleID
import HTTPCore
import Storage
import Web

extension Services {
    /// The `GET /metrics` page: the application's request counters, then what the server, Apple's key cache,
    /// the token verifiers, Apple's token endpoints and the SQLite writer have counted. Every value is read
    /// now, from counters their owners keep; nothing here runs on the request path.
    func metricsPage(requests: RequestMetrics?) -> String {
        var page = MetricsText()
        requests?.render(into: &page)
        let server = metrics.httpServer
        page.family("siwa_http_open_connections", .gauge, help: "Client connections open now.")
        page.sample("siwa_http_open_connections", [], server?.openConnections ?? 0)
        page.family("siwa_http_accepted_connections_total", .counter, help: "Client connections accepted since start.")
        page.sample("siwa_http_accepted_connections_total", [], server?.acceptedConnections ?? 0)
        page.family("siwa_http_refused_connections_total", .counter,
                    help: "Client connections closed unread because their address was at MAX_CONNECTIONS_PER_IP.")
        page.sample("siwa_http_refused_connections_total", [], server?.refusedConnections ?? 0)
        page.family("siwa_http_idle_connections_closed_at_limit_total", .counter,
                    help: "Idle client connections closed at MAX_CONNECTIONS so that a waiting one could be accepted.")
        page.sample("siwa_http_idle_connections_closed_at_limit_total", [], server?.idleConnectionsClosedAtLimit ?? 0)

        page.family("siwa_jwks_fetches_total", .counter, help: "Fetches of Apple's signing keys (JWKS), by outcome.")
        for outcome in JWKSFetchOutcome.allCases {
            page.sample("siwa_jwks_fetches_total", [("outcome", outcome.rawValue)], appleKeys.fetches[outcome])
        }

        page.family("siwa_token_verifications_total", .counter,
                    help: "Identity tokens verified for sign-in (app and web), by result: ok or why refused.")
        for result in VerificationResult.allCases {
            page.sample("siwa_token_verifications_total", [("result", result.rawValue)], metrics.verifications[result.slot])
        }

        page.family("siwa_apple_token_requests_total", .counter,
                    help: "Calls to Apple's /auth/token, /auth/revoke and /auth/usermigrationinfo, by endpoint and outcome.")
        // Without the Apple key nothing calls these endpoints: their series are zeros, present from the start as
        // Prometheus' "Instrumentation" guide asks, so a rule over them works before the key is configured.
        let calls = lifecycle.client?.calls ?? AppleAuthCallCounters()
        for endpoint in AppleAuthCallCounters.Endpoint.allCases {
            for outcome in AppleAuthCallCounters.Outcome.allCases {
                page.sample("siwa_apple_token_requests_total",
                            [("endpoint", endpoint.rawValue), ("outcome", outcome.rawValue)], calls[endpoint, outcome])
            }
        }
        appleClient(calls, into: &page)
        appleChores(into: &page)

        if let sqlite = database as? DatabasePool { sqliteWriter(sqlite, into: &page) }
        if let postgres = database as? PostgresPool {
            page.family("siwa_postgres_round_trips_total", .counter,
                        help: "Round trips to PostgreSQL (one per read or write, however many statements it carried).")
            page.sample("siwa_postgres_round_trips_total", [], postgres.roundTrips)
        }
        return page.text
    }

    /// How long calls to Apple take, and the pooled connections to Apple, which the keys use with or without the
    /// Apple key.
    private func appleClient(_ calls: AppleAuthCallCounters, into page: inout MetricsText) {
        page.family("siwa_apple_request_duration_seconds", .histogram,
                    help: "Duration of calls to Apple's /auth/keys, /auth/token, /auth/revoke and /auth/usermigrationinfo, waiting for a connection included.")
        let tokenEndpoints = AppleAuthCallCounters.Endpoint.allCases.map { ($0.rawValue, calls.durations(of: $0)) }
        for (endpoint, histogram) in [("keys", appleKeys.fetches.durations)] + tokenEndpoints {
            let (buckets, sum) = histogram.snapshot
            page.histogram("siwa_apple_request_duration_seconds", [("endpoint", endpoint)],
                           bounds: AppleCallDurations.bounds, bucketCounts: buckets, sum: Double(sum) / 1e9)
        }
        let pool = appleHTTP.statistics
        page.family("siwa_apple_connections", .gauge, help: "Connections to Apple now, by state (at most APPLE_MAX_CONNECTIONS).")
        page.sample("siwa_apple_connections", [("state", "open")], pool.open)
        page.sample("siwa_apple_connections", [("state", "idle")], pool.idle)
        page.family("siwa_apple_requests_waiting", .gauge, help: "Calls to Apple waiting for a free connection.")
        page.sample("siwa_apple_requests_waiting", [], pool.waiting)
        page.family("siwa_apple_connections_opened_total", .counter,
                    help: "Connections opened to Apple, by TLS handshake: full, resumed, or none (an http:// stand-in).")
        let tls = configuration.appleBaseURL.lowercased().hasPrefix("https://")
        page.sample("siwa_apple_connections_opened_total", [("tls", "full")], tls ? pool.opened - pool.resumedTLS : 0)
        page.sample("siwa_apple_connections_opened_total", [("tls", "resumed")], pool.resumedTLS)
        page.sample("siwa_apple_connections_opened_total", [("tls", "none")], tls ? 0 : pool.opened)
    }

    /// What the server's schedule of Apple's chores did: runs, tokens by outcome, throttled calls retried.
    private func appleChores(into page: inout MetricsText) {
        let chores = metrics.chores
        page.family("siwa_apple_chore_runs_total", .counter, help: "Runs of Apple's chores this instance made.")
        for chore in AppleChoreKind.allCases {
            page.sample("siwa_apple_chore_runs_total", [("chore", chore.rawValue)], chores.runs[chore.slot])
        }
        page.family("siwa_apple_chore_tokens_total", .counter, help: "Tokens Apple's chores settled, by chore and outcome.")
        for chore in AppleChoreKind.allCases {
            for label in ChoreOutcome.metricLabels {
                page.sample("siwa_apple_chore_tokens_total", [("chore", chore.rawValue), ("outcome", label)],
                            chores.count(chore, label: label))
            }
        }
        page.family("siwa_apple_chore_throttled_total", .counter,
                    help: "Calls Apple throttled or failed (429, 5xx) that a chore waited out and retried.")
        for chore in AppleChoreKind.allCases {
            page.sample("siwa_apple_chore_throttled_total", [("chore", chore.rawValue)], chores.throttledRetries(chore))
        }
    }

    /// The SQLite writer's counters (SQLite only: PostgreSQL keeps its own, `pg_stat_*`).
    private func sqliteWriter(_ database: DatabasePool, into page: inout MetricsText) {
        let statistics = database.writeStatistics
        page.family("siwa_sqlite_write_queue_depth", .gauge, help: "Writes queued for the SQLite writer, not yet started.")
        page.sample("siwa_sqlite_write_queue_depth", [], database.pendingWriteCount)
        page.family("siwa_sqlite_write_transactions_total", .counter,
                    help: "Write transactions committed (each a group commit of one or more writes).")
        page.sample("siwa_sqlite_write_transactions_total", [], statistics.transactions)
        page.family("siwa_sqlite_writes_total", .counter, help: "Writes committed.")
        page.sample("siwa_sqlite_writes_total", [], statistics.writes)
    }
}
