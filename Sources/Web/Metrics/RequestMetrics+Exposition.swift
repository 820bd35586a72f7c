extension RequestMetrics {
    /// Appends `siwa_http_requests_total` (series that counted at least one request) and
    /// `siwa_http_request_duration_seconds` (one series per route label, zeros included).
    package func render(into page: inout MetricsText) {
        page.family("siwa_http_requests_total", .counter,
                    help: "HTTP requests answered by the application, by method, route pattern and status.")
        for (route, routeLabel) in routeLabels.enumerated() {
            for method in 0..<methodCount {
                let methodLabel = method < Self.methods.count ? Self.methods[method].rawValue : Self.otherLabel
                for status in 0..<statusCount {
                    let value = requests[(route * methodCount + method) * statusCount + status]
                    guard value > 0 else { continue }
                    let statusLabel = status < Self.statusCodes.count ? String(Self.statusCodes[status]) : Self.otherLabel
                    page.sample("siwa_http_requests_total",
                                [("method", methodLabel), ("route", routeLabel), ("status", statusLabel)], value)
                }
            }
        }
        page.family("siwa_http_request_duration_seconds", .histogram,
                    help: "Time from a request's arrival at the application to its response head, by route pattern.")
        let width = boundsNanoseconds.count + 2
        for (route, routeLabel) in routeLabels.enumerated() {
            let base = route * width
            let buckets = (0...boundsNanoseconds.count).map { durations[base + $0] }
            let sum = Double(durations[base + width - 1]) / 1e9
            page.histogram("siwa_http_request_duration_seconds", [("route", routeLabel)],
                           bounds: Self.durationBounds, bucketCounts: buckets, sum: sum)
        }
    }
}
