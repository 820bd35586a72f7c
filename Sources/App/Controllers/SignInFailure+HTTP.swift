import AppleID
import HTTPCore
import Web

/// The one place where what went wrong in a sign-in becomes an HTTP answer: the status, what the client is told,
/// and `Retry-After` when trying again later may work (RFC 9110 §10.2.3).
extension SignInFailure: AbortError {
    /// `Retry-After` of a 503 when Apple's token endpoint could not be asked and named no time itself.
    static let appleRetryAfterSeconds = 10

    var status: HTTPStatus {
        switch self {
        case .identityToken(let error): error.httpStatus
        case .codeExchange(let error): error.httpStatus
        case .missingEmail: .badRequest
        case .stateMismatch, .notStartedHere, .alreadyUsed, .issuedBeforeConsentRevoked: .unauthorized
        case .webNotConfigured: .serviceUnavailable
        }
    }

    var reason: String {
        switch self {
        case .identityToken(let error): error.clientMessage
        case .codeExchange(let error): error.clientMessage
        case .missingEmail: "The identity token carries no email, which a new account needs."
        case .issuedBeforeConsentRevoked:
            "The identity token was issued before the user stopped using Sign in with Apple with this app; sign in "
                + "again."
        case .stateMismatch:
            "The sign-in state does not match this browser: another tab may have started a new sign-in, or the "
                + "identity token was not issued for this page's sign-in. Start again from the login page."
        case .notStartedHere:
            "This sign-in did not start in this browser, or it took longer than 5 minutes. Start again from the login "
                + "page."
        case .alreadyUsed: "This sign-in has already been used. Start again from the login page."
        case .webNotConfigured:
            "Sign in with Apple on the web is not configured (WEBSITE_APPLICATION_IDENTIFIER)."
        }
    }

    var headers: HTTPHeaders {
        switch self {
        case .identityToken(let error): error.httpHeaders
        case .codeExchange(let error) where error.httpStatus == .serviceUnavailable:
            ["Retry-After": "\(error.retryAfterSeconds ?? Self.appleRetryAfterSeconds)"]
        default: [:]
        }
    }
}

extension AppleIDError {
    /// `Retry-After` of a 503 for Apple's keys: the key cache refetches at most every 10 s.
    static let keysRetryAfterSeconds = 10

    /// 503 when Apple's keys could not be had (a later try may work), 401 for a token that is refused.
    var httpStatus: HTTPStatus { reason == .keysUnavailable ? .serviceUnavailable : .unauthorized }

    /// `Retry-After` with the 503, none with the 401.
    var httpHeaders: HTTPHeaders {
        reason == .keysUnavailable ? ["Retry-After": "\(Self.keysRetryAfterSeconds)"] : [:]
    }
}

extension AppleAuthError {
    /// 400 when Apple refused the code (`invalid_grant`); 401 for a code that belongs to another token; 503 when
    /// Apple could not serve the call now, or refused this server's own credentials or request (`invalid_client`,
    /// `unauthorized_client`, `invalid_request`, `unsupported_grant_type`, `invalid_scope`: the operator must fix
    /// something, and nothing is wrong with what the app sent).
    var httpStatus: HTTPStatus {
        switch kind {
        case .unreachable, .throttled, .malformedResponse, .interrupted: .serviceUnavailable
        case .tokenMismatch: .unauthorized
        case .apple: refusesTheCode ? .badRequest : .serviceUnavailable
        }
    }
}
