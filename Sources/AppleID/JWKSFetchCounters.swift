import HTTPCore
import Synchronization

/// How one JWKS fetch ended.
package enum JWKSFetchOutcome: String, CaseIterable, Sendable {
    /// A usable key set arrived and replaced the cached one.
    case ok
    /// The endpoint answered with a status other than 200.
    case httpError = "http_error"
    /// The body was not a usable key set (not JSON, no supported key, or empty).
    case invalid
    /// The connection or the response did not finish in time.
    case timeout
    /// The TLS handshake failed (certificate, host name or protocol).
    case tlsError = "tls_error"
    /// DNS, connect, reset or a malformed response.
    case networkError = "network_error"

    /// The outcome of a failed send.
    init(_ error: any Error) {
        guard let error = error as? HTTPClientError else {
            self = .networkError
            return
        }
        switch error.kind {
        // Waiting for a pooled connection past the call's time is a timeout too, as `AppleAuthClient` counts it
        // (found by a review: it was `network_error`).
        case .connectTimeout, .readTimeout, .poolTimeout: self = .timeout
        case .tlsHandshakeFailed: self = .tlsError
        default: self = .networkError
        }
    }
}

/// Fetches of one `JWKSCache` by outcome, since it was made; read by the app's metrics.
package final class JWKSFetchCounters: Sendable {
    private let counts = Mutex<[JWKSFetchOutcome: Int]>([:])
    /// How long the fetches took, whatever their outcome.
    package let durations = AppleCallDurations()

    package init() {}

    /// Fetches that ended with `outcome`.
    package subscript(outcome: JWKSFetchOutcome) -> Int { counts.withLock { $0[outcome] ?? 0 } }

    func record(_ outcome: JWKSFetchOutcome) {
        counts.withLock { $0[outcome, default: 0] += 1 }
    }
}
