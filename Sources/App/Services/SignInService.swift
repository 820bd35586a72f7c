import AppleID
import CryptoCore
import Foundation
import Logging

/// Signing in with Apple, for the app's API and the web flow alike: verifies the identity token, exchanges the
/// authorization code, then finds or creates the user and issues what the caller needs, in one transaction.
final class SignInService: Sendable {
    let users: UserRepository
    let usedNonces: UsedNonceRepository
    let lifecycle: AppleTokenLifecycle
    /// Verifies identity tokens from the iOS app (audience: the bundle ids); nil when not configured.
    let iosVerifier: IdentityTokenVerifier?
    /// Verifies identity tokens from the web flow (audience: the Services ID); nil when not configured.
    let webVerifier: IdentityTokenVerifier?
    let metrics: AppMetrics
    let clock: @Sendable () -> Date

    /// How long a bearer token works.
    static let bearerTokenLifetime: TimeInterval = 30 * 24 * 60 * 60

    init(configuration: Configuration, users: UserRepository, lifecycle: AppleTokenLifecycle,
         usedNonces: UsedNonceRepository, appleKeys: AppleKeySet, metrics: AppMetrics,
         clock: @escaping @Sendable () -> Date) {
        self.users = users
        self.usedNonces = usedNonces
        self.lifecycle = lifecycle
        self.metrics = metrics
        self.clock = clock
        iosVerifier = configuration.iosClientIDs.isEmpty ? nil : IdentityTokenVerifier(
            keys: appleKeys, clientIDs: Set(configuration.iosClientIDs), clock: clock
        )
        webVerifier = configuration.websiteClientID.map { clientID in
            IdentityTokenVerifier(keys: appleKeys, clientIDs: [clientID], clock: clock)
        }
    }

    /// Verifies an identity token, turning failures into the client's answer: 401 that says what kind of
    /// failure without helping an attacker, or 503 when Apple's keys cannot be had. The detail goes to the log.
    func verify(_ token: String, expecting nonce: IdentityTokenVerifier.ExpectedNonce?, with verifier: IdentityTokenVerifier,
                logger: Logger) async throws -> AppleIdentityToken
    {
        do {
            let identity = try await verifier.verify(token, expecting: nonce)
            metrics.record(.ok)
            return identity
        } catch let error as AppleIDError {
            metrics.record(VerificationResult(error.reason))
            logger.notice("identity token refused", metadata: ["reason": "\(error)"])
            throw SignInFailure.identityToken(error)
        }
    }

    /// Exchanges an authorization code when the lifecycle is on, turning Apple's refusals into the client's
    /// answer (400/401, 503 when Apple is unreachable) and naming the likely cause in the log.
    func exchange(code: String?, clientID: String, redirectURI: String?, identity: AppleIdentityToken,
                  logger: Logger) async throws -> AppleToken? {
        guard let code, !code.isEmpty else { return nil }
        guard lifecycle.isEnabled else {
            logger.notice("authorization code not exchanged: \(lifecycle.disabledReason ?? "not configured")")
            return nil
        }
        do {
            return try await lifecycle.exchange(code: code, clientID: clientID, redirectURI: redirectURI,
                                                expectedSubject: identity.sub, codeHash: identity.cHash)
        } catch let error as AppleAuthError {
            // A code Apple no longer takes (used, expired) is the client's to mend, a 400 any app meets now and then:
            // a notice. The rest (the operator's key, Apple unreachable) is a warning.
            logger.log(level: error.kind == .apple("invalid_grant") ? .notice : .warning,
                       "authorization code exchange failed", metadata: ["client_id": "\(clientID)", "cause": "\(error)"])
            throw SignInFailure.codeExchange(error)
        }
    }

    /// Apple's `account-delete` or `consent-revoked` for `sub` kept since it came, before the user holding
    /// `transferSub` got that `sub` (`AppleNotificationRepository+Held`): the user is moved now, and the events
    /// applied to them, so that this sign-in is judged as it would have been had they applied on arrival. A
    /// revocation from after the token's `iat` then refuses it (401), as for a user who held the `sub` already; after
    /// a deletion it makes a new user. Found by a review: applied after the sign-in, they ended the bearer token or
    /// session it had just answered with.
    private func applyKeptNotifications(sub: String, transferSub: String, at date: Date, logger: Logger) async throws {
        let kept = AppleNotificationRepository(pool: users.pool, now: clock)
        guard try await kept.holds(sub: sub) else { return }
        guard try await users.moveByTransfer(transferSub, to: sub, at: date) else { return }
        logger.notice("user moved by transfer_sub, before Apple's notifications kept for the sub are applied")
        let applied = try await kept.applyHeld()
        logger.notice("Apple notifications kept for users not yet imported applied", metadata: ["count": "\(applied)"])
    }

    /// Finds the user by Apple's `sub` (never by email) or creates one from the token, storing a newer email;
    /// issues a bearer token when `issueToken` is set and stores `appleToken` (from a code exchange). The email is
    /// only ever the verified token's, which Apple signed: a new user whose token has none is refused (400), on the
    /// API and the web flow alike, whatever a form says. `nonce`, the web flow's binding, is recorded as used in
    /// the same transaction (401 when it was used before), and so is `session`, the web flow's new browser session.
    /// The token's audience is recorded as the user's client id; an unknown `sub` whose token carries a `transfer_sub`
    /// held by a user signs in as that user (README "Moving the app to another team"). One write transaction: on any failure nothing is written.
    func signIn(identity: AppleIdentityToken, name: PersonName?, issueToken: Bool, appleToken: AppleToken? = nil,
                nonce: UsedNonceRepository.Use? = nil, session: BrowserLogin? = nil, logger: Logger) async throws
        -> (user: User, token: IssuedBearerToken?)
    {
        let now = clock()
        let email = identity.email ?? ""
        // One generator call for the token's secret and both ids (each RAND_bytes costs a getpid and a lock).
        let ids = UUID.timeOrderedRandomCount
        let secretBytes = BearerTokenValue.secretBytes
        let random = try SecureRandom.bytes(count: issueToken ? secretBytes + 2 * ids : ids)
        let candidate = User(id: .timeOrdered(now: Date(), random: random.suffix(ids)), name: name?.stored ?? "",
                             username: email, email: email, isPrivateEmail: identity.isPrivateEmail ?? false,
                             siwaIdentifier: identity.sub, createdAt: now)
        var value: String?
        var token: BearerToken?
        if issueToken {
            let id = UUID.timeOrdered(now: Date(), random: random.dropFirst(secretBytes).prefix(ids))
            let text = BearerTokenValue.text(id: id, secret: random.prefix(secretBytes))
            value = text
            token = BearerToken(id: id, userID: candidate.id, valueHash: SHA256.hash(text), createdAt: now,
                                expiresAt: now + Self.bearerTokenLifetime)
        }
        // The grant is stored as of this sign-in: the instant a move by `transfer_sub` records too, so the token of
        // the sign-in that moved the user is never taken for one the previous team issued before the move. Found by a
        // review: stamped at the exchange, some microseconds earlier, it was, on PostgreSQL (and on SQLite across a
        // millisecond), and Apple's refusal of it then left the user's bearer tokens and sessions alive.
        var appleToken = appleToken
        appleToken?.createdAt = now
        if let transferSub = identity.transferSub {
            try await applyKeptNotifications(sub: identity.sub, transferSub: transferSub, at: now, logger: logger)
        }
        let result: UserRepository.SignIn
        do {
            result = try await users.signIn(candidate, token: token, appleToken: appleToken, nonce: nonce,
                                            session: session, clientID: identity.audience,
                                            transferSub: identity.transferSub, issuedAt: identity.issuedAt)
        } catch UserRepository.SignInError.missingEmail {
            throw SignInFailure.missingEmail
        } catch UserRepository.SignInError.issuedBeforeConsentRevoked {
            throw SignInFailure.issuedBeforeConsentRevoked
        } catch is UsedNonceRepository.AlreadyUsed {
            throw Self.nonceAlreadyUsed(logger: logger)
        }
        if result.transferred {
            logger.notice("user moved from the previous Apple team by transfer_sub", metadata: ["user_id": "\(result.user.id.text(uppercase: false))"])
        }
        logger.info(result.created ? "user created" : "user signed in", metadata: ["user_id": "\(result.user.id.text(uppercase: false))"])
        guard let value, let stored = result.token else { return (result.user, nil) }
        return (result.user, IssuedBearerToken(token: stored, value: value, user: result.user))
    }
}
