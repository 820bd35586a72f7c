import Synchronization

/// Calls to Apple's token endpoints by endpoint and outcome, since the client was made; read by the app's metrics.
package final class AppleAuthCallCounters: Sendable {
    /// Which endpoint was called.
    package enum Endpoint: String, CaseIterable, Sendable {
        /// `POST /auth/token` (code exchange and refresh-token validation).
        case token
        /// `POST /auth/revoke`.
        case revoke
        /// `POST /auth/usermigrationinfo` (an app transfer to another team, TN3159).
        case usermigrationinfo
    }

    /// How a call ended.
    package enum Outcome: String, CaseIterable, Sendable {
        case ok
        case invalidGrant = "invalid_grant"
        case invalidClient = "invalid_client"
        case invalidRequest = "invalid_request"
        case unauthorizedClient = "unauthorized_client"
        case unsupportedGrantType = "unsupported_grant_type"
        /// Apple answered another `{"error": code}` (RFC 6749 §5.2).
        case otherAppleError = "apple_error"
        /// Apple answered 5xx.
        case serverError = "server_error"
        /// Apple answered 429 Too Many Requests.
        case throttled
        /// The call did not finish within `APPLE_TIMEOUT`.
        case timeout
        /// The request could not be sent or the answer not read (DNS, connect, TLS, timeout).
        case networkError = "network_error"
        /// Apple answered something that is not its documented shape.
        case malformedResponse = "malformed_response"

        /// The outcome for Apple's error `code`; codes outside RFC 6749 §5.2 count as `apple_error`.
        init(appleErrorCode code: String) {
            self = Outcome(rawValue: code).flatMap { [.ok, .otherAppleError, .serverError, .throttled, .timeout,
                                                      .networkError, .malformedResponse].contains($0) ? nil : $0 }
                ?? .otherAppleError
        }
    }

    private let counts = Mutex<[Endpoint: [Outcome: Int]]>([:])
    private let durations = Dictionary(uniqueKeysWithValues: Endpoint.allCases.map { ($0, AppleCallDurations()) })

    package init() {}

    /// How long the calls to `endpoint` took.
    package func durations(of endpoint: Endpoint) -> AppleCallDurations {
        durations[endpoint] ?? AppleCallDurations()
    }

    func recordDuration(_ endpoint: Endpoint, nanoseconds: Int) {
        durations[endpoint]?.record(nanoseconds: nanoseconds)
    }

    /// Calls to `endpoint` that ended with `outcome`.
    package subscript(endpoint: Endpoint, outcome: Outcome) -> Int {
        counts.withLock { $0[endpoint]?[outcome] ?? 0 }
    }

    func record(_ endpoint: Endpoint, _ outcome: Outcome) {
        counts.withLock { $0[endpoint, default: [:]][outcome, default: 0] += 1 }
    }
}
