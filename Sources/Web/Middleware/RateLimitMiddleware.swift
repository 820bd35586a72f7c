import Foundation
import HTTPCore

/// Refuses a request with `429 Too Many Requests` and `Retry-After` (RFC 6585 §4, RFC 9110 §10.2.3) when its
/// client address (`Request.remoteAddress`: the peer, or the nearest `X-Forwarded-For` hop with `TRUST_PROXY`)
/// has used up its `RateLimiter` bucket. The error renders like any other: JSON on API routes, HTML on pages.
///
/// Loopback clients are not limited: without a trusted proxy, a loopback peer is the operator or a proxy
/// whose users cannot be told apart, and limiting it would throttle them all as one.
package struct RateLimitMiddleware: Middleware {
    package let limiter: RateLimiter
    let reason: String

    /// - Parameters:
    ///   - limiter: The buckets, shared by every route this middleware guards.
    ///   - reason: What the client reads; `{seconds}` is replaced by the wait.
    package init(limiter: RateLimiter, reason: String = "Too many requests from your address. Try again in {seconds} s.") {
        self.limiter = limiter
        self.reason = reason
    }

    package func respond(to request: Request, chainingTo next: any Responder) async throws -> Response {
        let address = AddressPrefix(parsing: request.remoteAddress)
        if !address.isLoopback, let wait = limiter.acquire(address) {
            throw Abort(.tooManyRequests, reason: reason.replacingOccurrences(of: "{seconds}", with: String(wait)),
                        headers: ["Retry-After": String(wait)])
        }
        return try await next.respond(to: request)
    }
}
