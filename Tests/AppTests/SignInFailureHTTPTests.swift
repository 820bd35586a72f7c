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
}
