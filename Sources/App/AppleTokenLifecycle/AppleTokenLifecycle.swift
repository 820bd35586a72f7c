import AppleID
import CryptoCore
import Foundation
import HTTPCore
import JSON
import Logging

/// Apple's token lifecycle for the app: exchanging authorization codes for refresh tokens (kept encrypted),
/// revoking them when an account is deleted, retrying failed revocations, and validating stored tokens.
///
/// On when `APPLE_TEAM_ID`, `APPLE_KEY_ID` and `APPLE_PRIVATE_KEY_PATH` are set and the key loads; off otherwise
/// (every method a no-op that says so). Refresh tokens are encrypted with `SIWA_ENCRYPTION_KEY`, or without it
/// with a key the server makes and keeps beside the database (`keyFilePath(databasePath:)`).
package final class AppleTokenLifecycle: Sendable {
    let client: AppleAuthClient?
    let sealer: RefreshTokenSealer?
    /// Why the lifecycle is off, when it is.
    let disabledReason: String?
    let appleTokens: AppleTokenRepository
    let pending: PendingRevocationRepository
    let keys: AppleKeySet
    let clock: @Sendable () -> Date

    /// - Parameter saysWhereTheKeyIs: log, at notice, that the refresh-token key is the file beside the database
    ///   (the server's start); a one-shot command, whose output is one summary line, says it only at debug.
    init(configuration: Configuration, appleTokens: AppleTokenRepository, pending: PendingRevocationRepository,
         keys: AppleKeySet, http: HTTPClient, logger: Logger, clock: @escaping @Sendable () -> Date,
         saysWhereTheKeyIs: Bool = true) {
        self.appleTokens = appleTokens
        self.pending = pending
        self.keys = keys
        self.clock = clock
        guard let key = configuration.appleKey else {
            (client, sealer, disabledReason) = (nil, nil, Self.missingKeyReason)
            return
        }
        do {
            let encryptionKey = try Self.encryptionKey(configuration, logger: logger,
                                                       level: saysWhereTheKeyIs ? .notice : .debug)
            let secret = try ClientSecret.load(teamID: key.teamID, keyID: key.keyID, privateKeyPath: key.privateKeyPath,
                                               clock: clock)
            (client, sealer, disabledReason) = (
                AppleAuthClient(baseURL: configuration.appleBaseURL, clientSecret: secret, http: http),
                try RefreshTokenSealer(key: encryptionKey), nil
            )
        } catch {
            (client, sealer, disabledReason) = (nil, nil, "\(error)")
            logger.error("Apple token lifecycle is off: \(error)")
        }
    }

    var isEnabled: Bool { client != nil && sealer != nil }

    /// The user id of a token exchanged before its sign-in is written: the sign-in stores the token under the user
    /// its `sub` names. A constant, since Foundation's `UUID()` reads `/dev/urandom` (three system calls) each time.
    static let userNotYetKnown = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    /// Why the lifecycle is off when no Sign in with Apple key is configured.
    static let missingKeyReason = "APPLE_TEAM_ID, APPLE_KEY_ID and APPLE_PRIVATE_KEY_PATH are not set"

    /// On PostgreSQL every instance must open the refresh tokens any other instance sealed, so the key cannot be
    /// one a server makes for itself: it has to be `SIWA_ENCRYPTION_KEY`.
    struct MissingSharedKey: Error, CustomStringConvertible {
        var description: String {
            "SIWA_ENCRYPTION_KEY is not set: with DATABASE_URL every instance must encrypt Apple's refresh tokens with "
                + "the same key (32 bytes in base64 or hex, e.g. `openssl rand -base64 32`)"
        }
    }

    /// Where the refresh-token key is kept when `SIWA_ENCRYPTION_KEY` is not set: beside the database, in a file of
    /// its own (mode 0600), so that a copy of the database alone does not yield Apple's refresh tokens.
    package static func keyFilePath(databasePath: String) -> String { databasePath + ".refresh-token-key" }

    private static func encryptionKey(_ configuration: Configuration, logger: Logger, level: Logger.Level) throws
        -> [UInt8]
    {
        if let key = configuration.encryptionKey { return key }
        guard configuration.databaseURL == nil else { throw MissingSharedKey() }
        let path = keyFilePath(databasePath: configuration.databasePath)
        let key = try SecretFile.loadOrCreate(path: path, count: AES256GCM.keySize)
        logger.log(level: level,
                   "SIWA_ENCRYPTION_KEY is not set: Apple refresh tokens are encrypted with the key kept in \(path)")
        return key
    }

    /// Exchanges `code` (issued to `clientID`) and checks Apple's answer: the returned `id_token` is verified like
    /// any identity token for `clientID` and names `expectedSubject`, and its `at_hash` and `c_hash`, when present,
    /// match the access token and the code; `codeHash` (the sign-in token's `c_hash`), when present, must match the
    /// code before Apple is asked.
    /// - Returns: the encrypted refresh token to store, not yet tied to a user.
    /// - Throws: `AppleAuthError`; the sign-in wraps it in `SignInFailure.codeExchange`, whose HTTP answer
    ///   `SignInFailure+HTTP.swift` gives.
    func exchange(code: String, clientID: String, redirectURI: String?, expectedSubject: String, codeHash: String?)
        async throws -> AppleToken?
    {
        guard let client, let sealer else { return nil }
        let hashOfCode = TokenHash.of(code)
        if let codeHash, !constantTimeEquals(codeHash, hashOfCode) {
            throw AppleAuthError(.tokenMismatch, detail: "c_hash does not match the authorization code")
        }
        let response = try await client.exchange(code: code, clientID: clientID, redirectURI: redirectURI)
        do {
            return try checked(response, code: hashOfCode, clientID: clientID, expectedSubject: expectedSubject,
                               sealer: sealer)
        } catch var error as AppleAuthError where error.kind == .malformedResponse {
            // Apple answered 200: the code is spent, and a retry with it would be refused (found by a review).
            error.mayHaveReachedApple = true
            throw error
        }
    }

    /// Apple's answer to the exchange of a code whose hash is `hashOfCode`, checked (see `exchange`).
    private func checked(_ response: AppleAuthClient.TokenResponse, code hashOfCode: String, clientID: String,
                         expectedSubject: String, sealer: RefreshTokenSealer) throws -> AppleToken {
        let verifier = IdentityTokenVerifier(keys: keys, clientIDs: [clientID], clock: clock)
        let identity: AppleIdentityToken
        do {
            identity = try verifier.verifyFromTokenEndpoint(response.idToken)
        } catch let error as AppleIDError {
            // Apple's own answer is not a well-formed identity token for this client: garbage from Apple, a 503 (the
            // code is spent: the app signs in with Apple again), not a sign of a code that belongs to another sign-in
            // (found by a black-box review: an id_token that was not base64url answered 401). Only the bindings below
            // are mismatches.
            throw AppleAuthError(.malformedResponse, detail: "id_token from /auth/token refused: \(error)")
        }
        guard constantTimeEquals(identity.sub, expectedSubject) else {  // bytes, not canonical equivalence
            throw AppleAuthError(.tokenMismatch, detail: "id_token from /auth/token names another sub")
        }
        // Hashes that disagree with the access token or the code of the same answer are Apple's own inconsistency,
        // not a code of another sign-in: garbage, a 503 (found by a black-box review: a 401 that blamed the app's
        // code).
        if let atHash = identity.atHash, !constantTimeEquals(atHash, TokenHash.of(response.accessToken)) {
            throw AppleAuthError(.malformedResponse,
                                 detail: "at_hash of the id_token from /auth/token does not match its access token")
        }
        if let returnedCodeHash = identity.cHash, !constantTimeEquals(returnedCodeHash, hashOfCode) {
            throw AppleAuthError(.malformedResponse,
                                 detail: "c_hash of the id_token from /auth/token does not match the code")
        }
        guard let refreshToken = response.refreshToken, !refreshToken.isEmpty else {
            throw AppleAuthError(.malformedResponse, detail: "no refresh_token in the authorization-code answer")
        }
        return AppleToken(userID: Self.userNotYetKnown, clientID: clientID,
                          encryptedRefreshToken: try sealer.seal(refreshToken, clientID: clientID), createdAt: clock())
    }

    /// What `revokeAll` did: the ids of the tokens it sent to Apple, and those Apple did not revoke, as retry
    /// entries to queue in the deletion transaction.
    struct Revocations: Sendable {
        var sent: [UUID]
        var failures: [PendingRevocation]
    }

    /// Revokes every stored Apple token of `userID` at Apple.
    func revokeAll(userID: UUID, logger: Logger) async throws -> Revocations {
        let stored = try await appleTokens.list(userID: userID)
        let tokens = stored.filter { $0.revokedAt == nil }
        if tokens.isEmpty, isEnabled {
            // Apple's "Revoke tokens": without a refresh or access token there is nothing to revoke, and the app stays
            // listed under the user's Apple ID. Found by an audit: such a deletion said nothing of it.
            if stored.isEmpty {
                logger.notice("no Apple token to revoke: the app never sent an authorizationCode for this user",
                              metadata: ["user_id": "\(userID.text(uppercase: false))"])
            } else {
                logger.info("no Apple token to revoke: Apple had already refused the user's tokens",
                            metadata: ["user_id": "\(userID.text(uppercase: false))"])
            }
        }
        // At once, so that a deletion waits for Apple one `APPLE_TIMEOUT` at most, however many client ids the user
        // signed in with. Found by an audit: one after the other, a hanging Apple held the request N times as long.
        let outcomes = await withTaskGroup(of: (AppleToken, String?).self) { group in
            for token in tokens {
                group.addTask { (token, await self.revoke(clientID: token.clientID, encryptedToken: token.encryptedRefreshToken)) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        var failures: [PendingRevocation] = []
        for case let (token, error?) in outcomes {
            logger.warning("Apple token revocation failed; queued for retry", metadata: [
                "user_id": "\(userID.text(uppercase: false))", "client_id": "\(token.clientID)", "cause": "\(error)",
            ])
            failures.append(PendingRevocation(retrying: token, createdAt: clock(), lastError: error))
        }
        return Revocations(sent: tokens.map(\.id), failures: failures)
    }

    /// Revokes one token; nil on success, else why it failed (for the log and the retry queue).
    private func revoke(clientID: String, encryptedToken: [UInt8]) async -> String? {
        guard let client, let sealer else { return "Apple token lifecycle is off: \(disabledReason ?? "not configured")" }
        do {
            let token = try sealer.open(encryptedToken, clientID: clientID)
            try await client.revoke(token: token, clientID: clientID)
            return nil
        } catch let error as AppleAuthError {
            return error.likelyCause
        } catch {
            return "\(error)"
        }
    }
}
