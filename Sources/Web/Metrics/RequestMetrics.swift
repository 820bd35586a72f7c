import HTTPCore

/// Requests answered by an application, by method, matched route pattern and status, and their latency by
/// route: the `siwa_http_requests_total` counter and `siwa_http_request_duration_seconds` histogram.
///
/// Every label set is fixed when the application boots: the route label is a route's path pattern
/// (`/api/users/siwa`, `/users/:id`, `/**`), `static` for a file served by `FileMiddleware`, or `unmatched`
/// when no route answered (404, 405, automatic OPTIONS). Methods outside the standard ones count as `other`,
/// and so do status codes outside `statusCodes`, so a client cannot grow the label set. Recording a request is
/// a few array lookups and three relaxed atomic adds: no lock, no allocation.
package final class RequestMetrics: Sendable {
    /// Upper bounds of the latency buckets, in seconds: 0.5 ms to 5 s.
    package static let durationBounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                                                  1, 2.5, 5]
    /// Methods counted by name; any other is `other`.
    static let methods: [HTTPMethod] = [.GET, .HEAD, .POST, .PUT, .PATCH, .DELETE, .OPTIONS]
    /// Status codes counted by number; any other is `other`.
    static let statusCodes = [100, 101, 200, 201, 202, 204, 206, 301, 302, 303, 304, 307, 308, 400, 401, 403, 404,
                              405, 406, 408, 409, 410, 411, 412, 413, 414, 415, 416, 417, 422, 426, 428, 429, 431,
                              500, 501, 502, 503, 504, 505]
    static let staticLabel = "static"
    static let unmatchedLabel = "unmatched"
    static let otherLabel = "other"

    /// Distinct route patterns, then `static`, then `unmatched`.
    let routeLabels: [String]
    /// For each `Route.index`, its slot in `routeLabels`.
    let slotOfRoute: [Int]
    /// For each code below 600, its slot in `statusCodes`, or `statusCodes.count` (other).
    let statusSlots: [Int]
    let boundsNanoseconds: [Int]
    let methodCount = RequestMetrics.methods.count + 1
    let statusCount = RequestMetrics.statusCodes.count + 1
    /// route × method × status.
    let requests: AtomicCounters
    /// Per route: one count per bucket (the last is +Inf), then the sum in nanoseconds.
    let durations: AtomicCounters

    /// - Parameter routes: the frozen route table; `Route.index` must be each route's position in it.
    init(routes: [Route]) {
        var labels: [String] = []
        var slots: [String: Int] = [:]
        var slotOfRoute: [Int] = []
        for route in routes {
            let label = route.path.string
            if let slot = slots[label] {
                slotOfRoute.append(slot)
            } else {
                slots[label] = labels.count
                slotOfRoute.append(labels.count)
                labels.append(label)
            }
        }
        routeLabels = labels + [Self.staticLabel, Self.unmatchedLabel]
        self.slotOfRoute = slotOfRoute
        var statusSlots = [Int](repeating: Self.statusCodes.count, count: 600)
        for (slot, code) in Self.statusCodes.enumerated() { statusSlots[code] = slot }
        self.statusSlots = statusSlots
        boundsNanoseconds = Self.durationBounds.map { Int(($0 * 1e9).rounded()) }
        requests = AtomicCounters(count: routeLabels.count * methodCount * statusCount)
        durations = AtomicCounters(count: routeLabels.count * (Self.durationBounds.count + 2))
    }

    /// Counts one answered request.
    /// - Parameters:
    ///   - routeIndex: `Route.index` of the route that answered, nil when none did.
    ///   - servedFile: whether `FileMiddleware` answered it.
    ///   - nanoseconds: time from the request's arrival at the application to its response.
    func record(routeIndex: Int?, servedFile: Bool, method: HTTPMethod, status: Int, nanoseconds: Int) {
        let route: Int
        if let routeIndex, routeIndex >= 0, routeIndex < slotOfRoute.count {
            route = slotOfRoute[routeIndex]
        } else {
            route = routeLabels.count - (servedFile ? 2 : 1)
        }
        let statusSlot = status >= 0 && status < statusSlots.count ? statusSlots[status] : statusCount - 1
        requests.add((route * methodCount + Self.methodSlot(method)) * statusCount + statusSlot)
        var bucket = 0
        while bucket < boundsNanoseconds.count, nanoseconds > boundsNanoseconds[bucket] { bucket += 1 }
        let base = route * (boundsNanoseconds.count + 2)
        durations.add(base + bucket)
        durations.add(base + boundsNanoseconds.count + 1, max(nanoseconds, 0))
    }

    static func methodSlot(_ method: HTTPMethod) -> Int {
        switch method.rawValue {
        case "GET": 0
        case "HEAD": 1
        case "POST": 2
        case "PUT": 3
        case "PATCH": 4
        case "DELETE": 5
        case "OPTIONS": 6
        default: 7
        }
    }
}
