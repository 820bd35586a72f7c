import AppleID
import HTTPCore
import Testing
@testable import App

/// What each sign-in failure answers: the web layer's one mapping from the domain's words to a status, the client's
/// reason and `Retry-After`.
struct SignInFailureHTTPTests {
    @Test func everyFailureHasItsStatusAReasonAndRetryAfterOnlyWhenLaterMayWork() {
        let cases: [(SignInFailure, HTTPStatus, String?)] = [
            (.identityToken(AppleIDError(.badSignature)), .unauthorized, nil),
            (.identityToken(AppleIDError(.keysUnavailable)), .serviceUnavailable,
             "\(AppleIDError.keysRetryAfterSeconds)"),
            (.codeExchange(AppleAuthError(.apple("invalid_grant"))), .badRequest, nil),
            (.codeExchange(AppleAuthError(.apple("invalid_client"))), .serviceUnavailable,
             "\(SignInFailure.appleRetryAfterSeconds)"),
            (.codeExchange(AppleAuthError(.tokenMismatch)), .unauthorized, nil),
            (.codeExchange(AppleAuthError(.unreachable)), .serviceUnavailable, "\(SignInFailure.appleRetryAfterSeconds)"),
            (.codeExchange(AppleAuthError(.throttled, retryAfterSeconds: 42)), .serviceUnavailable, "42"),
            (.missingEmail, .badRequest, nil),
            (.stateMismatch, .unauthorized, nil),
            (.notStartedHere, .unauthorized, nil),
            (.alreadyUsed, .unauthorized, nil),
            (.webNotConfigured, .serviceUnavailable, nil),
        ]
        for (failure, status, retryAfter) in cases {
            #expect(failure.status == status, "\(failure)")
            #expect(!failure.reason.isEmpty)
            #expect(failure.headers["Retry-After"] == retryAfter, "\(failure)")
        }
    }

    /// Only `invalid_grant` is about the code the app sent. Apple's other error codes (its `ErrorResponse`) are about
    /// this server's credentials or request: the app is told the service is unavailable, not that its code was bad.
    /// Found by an audit: `invalid_request`, `unsupported_grant_type` and `invalid_scope` answered "Apple refused the
    /// authorization code" with a 400.
    @Test(arguments: ["invalid_client", "unauthorized_client", "invalid_request", "unsupported_grant_type",
                      "invalid_scope", "a_code_apple_has_not_documented"])
    func everyAppleErrorButInvalidGrantIsTheServersOwn(_ code: String) {
        let failure = SignInFailure.codeExchange(AppleAuthError(.apple(code)))
        #expect(failure.status == .serviceUnavailable)
        #expect(failure.reason.hasPrefix("Sign in with Apple is unavailable: Apple refused this server's"), "\(failure.reason)")
        #expect(failure.headers["Retry-After"] == "\(SignInFailure.appleRetryAfterSeconds)")
    }
}
