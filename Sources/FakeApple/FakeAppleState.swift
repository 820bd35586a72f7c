import Foundation

/// What the stand-in remembers while it runs: issued codes, refresh tokens, who already shared their name,
/// and every revocation (tests read them).
actor FakeAppleState {
    /// Apple's authorization codes are single-use and expire after five minutes.
    static let codeLifetime: TimeInterval = 300

    /// What a user let a client see: the claims of every identity token minted for that authorization.
    struct Grant: Sendable {
        var clientID: String
        var subject: String
        var email: String
        var isPrivateEmail: Bool
        /// `transfer_sub`, for a user who moved here with the app from another team (`FakeAppleTransfers`).
        var transferSub: String?
        /// Whether the identity tokens carry `email`: the web authorization asked for the `email` scope (Apple shares
        /// the address only then). An app's credential always asks for it here.
        var sharesEmail = true

        /// The user and the client as one key: Apple shares the user's name once per pair.
        var userAndClient: String { "\(clientID)\n\(subject)" }
    }

    /// An authorization code, until it is redeemed or expires.
    struct IssuedCode: Sendable {
        var grant: Grant
        var redirectURI: String
        var nonce: String?
        var issuedAt: Date
        /// The access token and identity token its exchange answers with, made when the code is issued.
        var exchange: ExchangeTokens
        var used = false
    }

    /// What `/auth/token` gives for a code besides the refresh token: the access token and the identity token
    /// that carries its `at_hash`.
    struct ExchangeTokens: Sendable {
        var accessToken: String
        var idToken: String
    }

    /// A refresh token: the grant it renews, until revoked.
    struct RefreshToken: Sendable {
        var grant: Grant
        var revoked = false
    }

    private var codes: [String: IssuedCode] = [:]
    private var refreshTokens: [String: RefreshToken] = [:]
    /// The grant of each access token `/auth/token` gave, which `/auth/revoke` takes as well as a refresh token.
    private var accessTokens: [String: Grant] = [:]
    private var sharedName: Set<String> = []
    private(set) var revocations: [FakeAppleRevocation] = []
    private let clock: @Sendable () -> Date
    init(clock: @escaping @Sendable () -> Date) { self.clock = clock }

    func issue(code: String, _ issued: IssuedCode) { codes[code] = issued }

    /// Whether this is the user's first authorization of the grant's client: Apple sends `user` only then.
    func isFirstAuthorization(_ grant: Grant) -> Bool { sharedName.insert(grant.userAndClient).inserted }

    enum GrantError: Error, Equatable { case invalidGrant(String) }

    /// Redeems a code once; a second use, an expired code or another client's code is `invalid_grant`.
    func redeem(code: String, clientID: String, redirectURI: String?) throws -> IssuedCode {
        guard var issued = codes[code] else { throw GrantError.invalidGrant("unknown authorization code") }
        guard !issued.used else { throw GrantError.invalidGrant("authorization code already used") }
        guard clock().timeIntervalSince(issued.issuedAt) <= Self.codeLifetime else {
            throw GrantError.invalidGrant("authorization code expired")
        }
        guard issued.grant.clientID == clientID else { throw GrantError.invalidGrant("code was issued to another client") }
        if (redirectURI ?? "") != issued.redirectURI {
            throw GrantError.invalidGrant("redirect_uri does not match the authorization request")
        }
        issued.used = true
        codes[code] = issued
        return issued
    }

    func store(refreshToken: String, _ token: RefreshToken) { refreshTokens[refreshToken] = token }

    func store(accessToken: String, for grant: Grant) { accessTokens[accessToken] = grant }

    /// The prefix of seeded refresh tokens (`FakeAppleServer.seededRefreshToken`), followed by the `sub`.
    static let seededPrefix = "rseeded."

    /// Stores a seeded token on its first use, as issued to `clientID`.
    private func adoptSeeded(_ token: String, clientID: String) {
        guard refreshTokens[token] == nil, token.hasPrefix(Self.seededPrefix) else { return }
        let subject = String(token.dropFirst(Self.seededPrefix.count))
        refreshTokens[token] = RefreshToken(grant: Grant(clientID: clientID, subject: subject,
                                                         email: "\(subject)@example.com", isPrivateEmail: false))
    }

    func refresh(token: String, clientID: String) throws -> RefreshToken {
        adoptSeeded(token, clientID: clientID)
        guard let stored = refreshTokens[token], !stored.revoked else {
            throw GrantError.invalidGrant("refresh token unknown or revoked")
        }
        guard stored.grant.clientID == clientID else { throw GrantError.invalidGrant("token was issued to another client") }
        return stored
    }

    /// Revoking a token, refresh or access, ends the app's authorization as "Stop using Apple ID" does ("Revoke
    /// tokens": it invalidates the tokens and the associated user authorizations): every refresh token of that user
    /// and client stops working, and the next sign-in is a first one again, with `user`. Found by a review: only the
    /// one refresh token ended, and an access token ended nothing.
    func revoke(token: String, clientID: String, hint: String?) {
        adoptSeeded(token, clientID: clientID)
        let grant = refreshTokens[token]?.grant ?? accessTokens[token]
        let known = grant?.clientID == clientID
        if known, let grant {
            for (value, stored) in refreshTokens where stored.grant.userAndClient == grant.userAndClient {
                refreshTokens[value]?.revoked = true
            }
            for (value, stored) in accessTokens where stored.userAndClient == grant.userAndClient {
                accessTokens[value] = nil
            }
            sharedName.remove(grant.userAndClient)
        }
        revocations.append(FakeAppleRevocation(clientID: clientID, token: token, tokenTypeHint: hint, known: known))
    }

    func isRevoked(refreshToken: String) -> Bool { refreshTokens[refreshToken]?.revoked ?? false }

    /// Ages every issued code by `interval` (tests of the five-minute rule).
    func ageCodes(by interval: TimeInterval) {
        for key in codes.keys { codes[key]?.issuedAt.addTimeInterval(-interval) }
    }
}

/// A revocation the stand-in received.
package struct FakeAppleRevocation: Sendable, Equatable {
    package var clientID: String
    package var token: String
    package var tokenTypeHint: String?
    /// Whether the token was one the stand-in issued to that client.
    package var known: Bool
}
