import Logging
import Web

/// The per-address limit on the sign-in routes (`SIGNIN_RATE_LIMIT`, `SIGNIN_RATE_BURST`): one set of buckets
/// shared by `POST /api/users/siwa`, `POST /login/siwa/callback` and `POST /login/siwa/handle`.
enum SignInRateLimit {
    /// The middleware to put in front of the sign-in routes; none when the limit is off (`SIGNIN_RATE_LIMIT=0`).
    static func middleware(_ configuration: Configuration) -> [any Middleware] {
        guard configuration.signInRateLimit > 0 else { return [] }
        let limiter = RateLimiter(perMinute: configuration.signInRateLimit, burst: configuration.signInRateBurst)
        return [RateLimitMiddleware(limiter: limiter, reason: "Too many sign-in attempts from your address. Try again in {seconds} s.")]
    }

    /// The start-up notice saying what is limited and why loopback clients are not.
    static func logNotice(_ configuration: Configuration, logger: Logger) {
        guard configuration.signInRateLimit > 0 else { return }
        let whom = configuration.trustProxy
            ? "client addresses from X-Forwarded-For (TRUST_PROXY); requests without one from a loopback peer are not limited"
            : "peer addresses; loopback peers are not limited, since behind a local proxy (ngrok) every user shares "
                + "the proxy's address (set TRUST_PROXY=true behind a proxy to limit each client)"
        logger.notice("sign-in rate limit: \(configuration.signInRateLimit)/min, burst \(configuration.signInRateBurst), per \(whom)")
    }
}
