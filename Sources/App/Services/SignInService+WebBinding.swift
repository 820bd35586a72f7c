import AppleID
import CryptoCore
import Foundation
import Logging

/// The web flow's binding of an identity token to the browser that asked Apple for it (README "The web flow"):
/// the login page gives `AppleID.auth.init` the nonce `hex(SHA-256(SIWA_STATE))`, Apple copies it into the
/// token, and the handle step accepts the token only with that browser's cookie, once.
extension SignInService {
    /// Checks that the `state` Apple handed back equals the browser's `SIWA_STATE` cookie, in constant time (the
    /// CSRF check of RFC 6749 §10.12): 401 when either is missing or empty, or they differ.
    static func checkState(_ state: String?, cookie: String?) throws {
        // No cookie: not started in this browser, or started over 5 minutes ago (its Max-Age), which a user who was
        // slow on Apple's page is told as such.
        guard let cookie, !cookie.isEmpty else { throw SignInFailure.notStartedHere }
        guard let state, !state.isEmpty, constantTimeEquals(state, cookie) else { throw SignInFailure.stateMismatch }
    }

    /// The nonce a browser's `SIWA_STATE` cookie binds its identity token to.
    ///
    /// - Throws: 401 when the request carries no state cookie (or an empty one): then no token may sign in.
    func boundNonce(stateCookie: String?, logger: Logger) throws -> String {
        guard let stateCookie, !stateCookie.isEmpty else {
            logger.notice("web sign-in refused", metadata: ["reason": "no SIWA_STATE cookie"])
            throw SignInFailure.notStartedHere
        }
        return IdentityTokenVerifier.ExpectedNonce.hash(ofState: stateCookie)
    }

    /// A use of `nonce` by `identity`, kept until the token expires plus the verifier's leeway and
    /// `nonceClockMargin`, after which every instance refuses the token anyway; 401 at once when the nonce signed in
    /// before, so that a replay does not spend Apple's authorization code. The use is recorded by
    /// `signIn(…nonce:…)`, insert-or-fail.
    func unusedNonce(_ nonce: String, identity: AppleIdentityToken, logger: Logger) async throws
        -> UsedNonceRepository.Use
    {
        guard try await !usedNonces.isUsed(nonce) else { throw Self.nonceAlreadyUsed(logger: logger) }
        return UsedNonceRepository.Use(nonce: nonce, usedAt: clock(), expiresAt: identity.expiresAt
                                           + IdentityTokenVerifier.defaultLeeway + Self.nonceClockMargin)
    }

    /// How much longer a used nonce is kept than its token is good: instances on one database whose clocks differ
    /// by up to this much (NTP keeps them far closer) all see it until none accepts the token. Found by a review:
    /// kept only until the token's last good second, a sweep at that second, or by an instance whose clock was
    /// ahead, let the token sign in a second time.
    static let nonceClockMargin: TimeInterval = 5 * 60

    /// The refusal of a nonce that signed in before, logged.
    static func nonceAlreadyUsed(logger: Logger) -> SignInFailure {
        logger.notice("web sign-in refused", metadata: ["reason": "nonce already used"])
        return .alreadyUsed
    }
}
