
/// Why a call to Apple's `/auth/token` or `/auth/revoke` failed, with the likely cause for the log.
package struct AppleAuthError: Error, Equatable, Sendable, CustomStringConvertible {
    package enum Kind: Equatable, Sendable {
        /// Apple answered `{"error": code}` (RFC 6749 §5.2).
        case apple(String)
        /// Apple could not be reached, timed out, or answered 5xx (`status` then says which).
        case unreachable
        /// Apple answered 429 Too Many Requests.
        case throttled
        /// Apple answered something that is not its documented shape.
        case malformedResponse
        /// The `id_token` Apple returned failed verification or does not match (sub, at_hash, c_hash).
        case tokenMismatch
        /// This server ended the call before Apple answered: its shutdown's grace period was over.
        case interrupted
    }

    package var kind: Kind
    /// Log detail; never a token, code or secret.
    package var detail: String
    /// Seconds Apple asked the caller to wait (its `Retry-After`, RFC 9110 §10.2.3), when it sent one.
    package var retryAfterSeconds: Int?
    /// The status of Apple's answer, when it answered at all: a 5xx tells a fault at Apple from a network that did
    /// not reach it.
    package var status: Int?
    /// Whether the request may have reached Apple with no usable answer back (a timeout or a connection lost after it
    /// was sent, or a 200 whose answer is not Apple's shape): a single-use authorization code may then be spent, and
    /// the same code would be refused.
    package var mayHaveReachedApple: Bool

    package init(_ kind: Kind, detail: String = "", retryAfterSeconds: Int? = nil, status: Int? = nil,
                 mayHaveReachedApple: Bool = false) {
        self.kind = kind
        self.detail = detail
        self.retryAfterSeconds = retryAfterSeconds
        self.status = status
        self.mayHaveReachedApple = mayHaveReachedApple
    }

    package static func == (lhs: AppleAuthError, rhs: AppleAuthError) -> Bool { lhs.kind == rhs.kind }

    /// What most likely went wrong, for the operator.
    package var likelyCause: String {
        switch kind {
        case .apple("invalid_client"):
            "invalid_client: the client secret is expired or malformed, or APPLE_KEY_ID / APPLE_TEAM_ID do not match "
                + "the key, or the client id is wrong, or (web) SIWA_REDIRECT_URL is not a Return URL of the Services ID"
        case .apple("invalid_grant"):
            "invalid_grant: the code is older than 5 minutes, was already used, or was issued to the other client id "
                + "(app codes go with the bundle id, web codes with the Services ID), or with another redirect URI; "
                + "or the refresh token was revoked"
        case .apple("invalid_request"):
            "invalid_request: Apple found this server's request malformed (a parameter missing or unsupported, or the "
                + "client authenticated twice)"
        case .apple("unauthorized_client"): "unauthorized_client: the client id is not allowed to use this grant"
        case .apple("unsupported_grant_type"): "unsupported_grant_type: Apple does not accept this grant_type"
        case .apple("invalid_scope"): "invalid_scope: Apple does not grant the scope asked for to this client id"
        case .apple(let code): "Apple answered \(code.prefix(40))"
        case .unreachable:
            status.map { "Apple answered \($0): a fault on Apple's side" }
                ?? "Apple is unreachable (network, DNS, TLS or a timeout)"
        case .throttled: "Apple is throttling this server (429 Too Many Requests)"
        case .malformedResponse: "Apple's answer was not understood"
        case .tokenMismatch: "the id_token from Apple does not belong to this sign-in"
        case .interrupted: "this server's shutdown ended the call before Apple answered (the grace period was over)"
        }
    }

    /// Whether the call may succeed later unchanged: Apple was unreachable, slow, throttling or failing.
    package var isTransient: Bool {
        switch kind {
        case .unreachable, .throttled, .malformedResponse, .interrupted: true
        case .apple, .tokenMismatch: false
        }
    }

    /// Whether Apple refused what the app sent (the code, `invalid_grant`), rather than this server's own
    /// credentials or request, which every other error code of Apple's (`ErrorResponse`) is about.
    package var refusesTheCode: Bool { kind == .apple("invalid_grant") }

    /// Apple's `error` code as it may be logged and compared: its first 40 characters, each outside the
    /// codes' alphabet (letters, digits, `_`, `-`, `.`) as `?`. An answer's control characters would otherwise start
    /// forged log lines (CWE-117). Found by a black-box review.
    package static func loggableCode(_ code: String) -> String {
        String(code.unicodeScalars.prefix(40).map { scalar -> Character in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "_-.".unicodeScalars
                .contains(scalar)) ? Character(scalar) : "?"
        })
    }

    /// What a client may be told.
    package var clientMessage: String {
        switch kind {
        case .unreachable where mayHaveReachedApple, .malformedResponse where mayHaveReachedApple:
            "Apple's token service gave no usable answer; the authorization code may be used up, so sign in with "
                + "Apple again"
        case .unreachable, .throttled, .malformedResponse: "Apple's token service is unavailable; try again later"
        case .apple("invalid_grant"): "The authorization code is invalid, expired or already used"
        case .apple("invalid_client"), .apple("unauthorized_client"):
            "Sign in with Apple is unavailable: Apple refused this server's credentials"
        case .apple: "Sign in with Apple is unavailable: Apple refused this server's request"
        case .tokenMismatch: "The authorization code does not belong to this identity token"
        case .interrupted: "The server is restarting; try again"
        }
    }

    package var description: String { "AppleAuthError(\(kind)): \(likelyCause) [\(detail)]" }
}
