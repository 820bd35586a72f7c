import AppleID

/// Why a sign-in was refused, in the domain's words. Which HTTP status and `Retry-After` each one is, and what the
/// client is told, is the web layer's to say (`SignInFailure+HTTP.swift`).
enum SignInFailure: Error, Equatable {
    /// The identity token was refused, or Apple's keys to check it could not be had.
    case identityToken(AppleIDError)
    /// Apple refused the authorization code, or could not be asked.
    case codeExchange(AppleAuthError)
    /// A new user's identity token carries no email, which an account needs.
    case missingEmail
    /// The identity token was issued before Apple said the user revoked their consent: a replay.
    case issuedBeforeConsentRevoked
    /// The web flow's `state` is not the browser's `SIWA_STATE` cookie (RFC 6749 §10.12).
    case stateMismatch
    /// The web sign-in did not start in this browser: no `SIWA_STATE` cookie to bind the token to.
    case notStartedHere
    /// The web flow's nonce signed in before.
    case alreadyUsed
    /// Sign in with Apple on the web is not configured (no Services ID).
    case webNotConfigured
}
