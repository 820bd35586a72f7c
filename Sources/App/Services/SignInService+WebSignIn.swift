import AppleID
import Foundation
import Logging
import Storage

/// The last step of a web sign-in, one for the redirect flow's hand-off (`POST /login/siwa/handle`) and the popup
/// (`POST /login/siwa/popup`): the same checks, and the same cost as the API's sign-in, one read and one write.
extension SignInService {
    /// What the browser brought back from Apple, by either flow.
    struct WebSignIn: Sendable {
        /// The identity token (`id_token`).
        var token: String
        /// The authorization code, exchanged when the Apple key is configured.
        var code: String?
        /// The name Apple gives once, on the first sign-in (the email is only ever the token's).
        var name: PersonName
    }

    /// How long a web sign-in whose code Apple refused waits for another request with the same nonce to commit:
    /// posted at the same moment, the other one spent the code and may commit a little after this one hears Apple.
    static let concurrentUseWait: Duration = .seconds(1)
    /// How often the nonce is looked at meanwhile.
    static let concurrentUsePoll: Duration = .milliseconds(20)

    /// Whether `nonce` is used, now or within `concurrentUseWait`. Found by an audit: checked once, right after
    /// Apple's answer, the other request had often not committed yet, and the second post got invalid_grant's 400.
    func nonceIsUsedSoon(_ nonce: String) async throws -> Bool {
        let deadline = ContinuousClock.now + Self.concurrentUseWait
        while true {
            if try await usedNonces.isUsed(nonce) { return true }
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: Self.concurrentUsePoll)
        }
    }

    /// Signs the browser in and starts its session, in this order:
    /// - the token must carry the nonce `hex(SHA-256(SIWA_STATE))` of `stateCookie` (401 without one, or for
    ///   another), with the Services ID as its audience (`webVerifier`; Apple's "Verifying a user");
    /// - the nonce must not have signed in before, on any instance (the one read: a replay does not spend the code);
    /// - the code is exchanged (RFC 6749 §4.1.3) for the redirect URI it was issued with (503 with Retry-After when
    ///   Apple cannot be reached); when Apple says the code was used and the nonce signs in meanwhile (the same
    ///   sign-in posted twice at once), the answer is the replay's 401;
    /// - the user, Apple's token, the nonce and the new session are written in one transaction, which also deletes
    ///   the session the browser's cookie named (`login`: a new id at login, OWASP ASVS V3.2.1).
    /// - Returns: the user; the caller hands the browser its session once this has returned.
    func completeWebSignIn(_ signIn: WebSignIn, stateCookie: String?, redirectURI: String?, login: BrowserLogin,
                           logger: Logger) async throws -> User
    {
        guard let verifier = webVerifier else {
            throw SignInFailure.webNotConfigured
        }
        let nonce = try boundNonce(stateCookie: stateCookie, logger: logger)
        let identity: AppleIdentityToken
        do {
            identity = try await verify(signIn.token, expecting: .exactly(nonce), with: verifier, logger: logger)
        } catch SignInFailure.identityToken(let error) where error.reason == .nonceMismatch {
            // A token bound to another page's state (another tab, another browser), or to none: the browser's
            // words for it, not the app's ("send the raw nonce"). Found by an audit.
            throw SignInFailure.stateMismatch
        }
        let use = try await unusedNonce(nonce, identity: identity, logger: logger)
        let appleToken: AppleToken?
        do {
            appleToken = try await exchange(code: signIn.code, clientID: identity.audience,
                                            redirectURI: redirectURI, identity: identity, logger: logger)
        } catch SignInFailure.codeExchange(let error) where error.refusesTheCode {
            // The same sign-in posted twice at once: the other request spent the code and signs in. This one is a
            // second use of the nonce (401), not a bad code.
            if try await nonceIsUsedSoon(nonce) { throw Self.nonceAlreadyUsed(logger: logger) }
            throw SignInFailure.codeExchange(error)
        }
        return try await self.signIn(identity: identity, name: signIn.name, issueToken: false, appleToken: appleToken,
                                     nonce: use, session: login, logger: logger).user
    }
}
