import CryptoCore
import HTTPCore
import Web

/// `GET /metrics`: the Prometheus text page, for requests bearing `METRICS_TOKEN` (RFC 6750 §2.1).
///
/// Registered only when `METRICS_TOKEN` is set, so without it `/metrics` is a 404 like any unknown path.
/// A missing or wrong token is 401 with `WWW-Authenticate: Bearer` (RFC 6750 §3). The token is compared
/// through SHA-256 digests in constant time, so neither its contents nor its length leak through timing.
struct MetricsController: RouteCollection {
    let services: Services
    let tokenDigest: [UInt8]

    init(services: Services, token: String) {
        self.services = services
        tokenDigest = SHA256.hash(token)
    }

    func boot(routes: any RoutesBuilder) throws {
        routes.grouped(JSONErrorsMiddleware()).get("metrics", use: scrape)
    }

    @Sendable func scrape(_ req: Request) async throws -> Response {
        guard let presented = try req.bearerToken else {
            throw Abort(.unauthorized, reason: "A metrics token is required.",
                        headers: ["WWW-Authenticate": "Bearer realm=\"metrics\""])
        }
        guard constantTimeEquals(SHA256.hash(presented), tokenDigest) else {
            throw Abort(.unauthorized, reason: "The metrics token is not valid.",
                        headers: ["WWW-Authenticate": "Bearer realm=\"metrics\", error=\"invalid_token\""])
        }
        return Response(status: .ok, headers: ["Content-Type": MetricsText.contentType, "Cache-Control": "no-store"],
                        text: services.metricsPage(requests: req.requestMetrics))
    }
}
