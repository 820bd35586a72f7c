import CryptoCore
import Foundation
import JOSE
import JSON

/// Verifies Sign in with Apple identity tokens, and the core of any Apple-signed JWT.
///
/// A token is accepted only if all hold (README, "The iOS flow"; Apple, "Verifying a user"): three
/// strict base64url parts within ``JWSLimits``; `alg` exactly RS256 (RFC 8725 §3.1), no `crit`,
/// no `jku`/`x5u`/`jwk`/`x5c` — all checked before any key is looked up; `kid` names one of
/// Apple's keys; the RSASSA-PKCS1-v1_5 SHA-256 signature verifies; `iss` is exactly
/// ``issuer``; `aud` (string or array) contains one of ``clientIDs``; `exp` not past and `iat`
/// not future, each with ``leeway`` (RFC 7519 §4.1.4, §4.1.6), and `nbf` not future when present
/// (§4.1.5); `sub` present, with a character that is not white space;
/// when the request carries a nonce, the token's `nonce` equals it or its SHA-256 hex; and when the
/// token carries a `nonce`, the request carries the matching one.
///
/// The same verifier, with other client ids and a ``maximumTokenAge``, checks Apple's
/// server-to-server notifications through ``verifyJWT(_:requireExpiration:)``.
package struct IdentityTokenVerifier: Sendable {
    /// The only issuer Apple uses, whatever `APPLE_BASE_URL` says.
    package static let appleIssuer = "https://appleid.apple.com"
    /// The only algorithm Apple signs with; everything else is refused before a key is looked up.
    package static let allowedAlgorithms: Set<JWSAlgorithm> = [.rs256]
    /// Clock skew tolerated on `exp` and `iat`, in seconds.
    package static let defaultLeeway: TimeInterval = 60

    package let keys: any SigningKeyProvider
    package let clientIDs: Set<String>
    package let issuer: String
    package let leeway: TimeInterval
    /// When set, tokens whose `iat` is older than this (plus leeway) are refused as `.tooOld`.
    package let maximumTokenAge: TimeInterval?
    package let limits: JWSLimits
    let clock: @Sendable () -> Date

    /// - Parameters:
    ///   - keys: where Apple's RS256 keys come from (the JWKS cache).
    ///   - clientIDs: accepted audiences: bundle ids for the app, the Services ID for the web.
    ///   - issuer: the exact `iss`; Apple's unless a test says otherwise.
    ///   - leeway: clock skew allowed on `exp` and `iat`.
    ///   - maximumTokenAge: freshness window on `iat` (server notifications); nil for none.
    ///   - limits: size limits on the compact token.
    ///   - clock: the current time; injected so tests control it.
    package init(
        keys: any SigningKeyProvider,
        clientIDs: Set<String>,
        issuer: String = IdentityTokenVerifier.appleIssuer,
        leeway: TimeInterval = IdentityTokenVerifier.defaultLeeway,
        maximumTokenAge: TimeInterval? = nil,
        limits: JWSLimits = .default,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.keys = keys
        self.clientIDs = clientIDs
        self.issuer = issuer
        self.leeway = leeway
        self.maximumTokenAge = maximumTokenAge
        self.limits = limits
        self.clock = clock
    }

    /// Verifies an identity token a client sent.
    /// - Parameters:
    ///   - token: the compact JWT from `ASAuthorizationAppleIDCredential.identityToken` or `id_token`.
    ///   - nonce: the raw nonce the request carries, nil when it carries none: a token nonce must then match it,
    ///     or be absent.
    /// - Throws: ``AppleIDError``; show its `clientMessage`, log its `description`.
    package func verify(_ token: String, nonce: String?) async throws -> AppleIdentityToken {
        try await verify(token, expecting: .request(nonce))
    }

    /// Verifies an identity token whose `nonce` must be as `nonce` says; nil asks nothing of it, for a token that
    /// came from Apple itself rather than from a client (the `id_token` of a code exchange).
    /// - Throws: ``AppleIDError``; `.nonceMismatch` when the token's nonce is missing or another, `.nonceMissing`
    ///   when it has one and the request sent none.
    package func verify(_ token: String, expecting nonce: ExpectedNonce?) async throws -> AppleIdentityToken {
        let (jwt, claims) = try await verifiedClaims(token, requireExpiration: true)
        return try identityToken(jwt: jwt, claims: claims, nonce: nonce)
    }

    /// Checks the `id_token` that Apple's token endpoint returned on this server's own verified TLS connection:
    /// RS256 in the header, `iss`, `aud`, `iat`, `exp` and `sub` as for any identity token, but not the signature.
    /// OpenID Connect Core 1.0 §3.1.3.7 (6): a token received in direct communication with the token endpoint may
    /// have its issuer validated by the TLS server validation in place of its signature; the HTTP client reaches
    /// Apple only over verified HTTPS (plain `http` only to a loopback stand-in). The caller still binds it to the
    /// sign-in (`sub`, `at_hash`).
    /// - Throws: ``AppleIDError``.
    package func verifyFromTokenEndpoint(_ token: String) throws -> AppleIdentityToken {
        let content = try parsedUnverified(token)
        let members = try Self.claimMembers(ofPayload: content.payload)
        let (jwt, claims) = try checkClaims(header: content.header, members: members, requireExpiration: true)
        return try identityToken(jwt: jwt, claims: claims, nonce: nil)
    }

    /// The identity-token checks after the signature and the registered claims: `sub`, `nonce`, the Apple extras.
    func identityToken(jwt: VerifiedJWT, claims: AppleIDClaims, nonce: ExpectedNonce?) throws -> AppleIdentityToken {
        guard case .string(let sub)? = claims.sub, sub.unicodeScalars.contains(where: { !$0.properties.isWhitespace }) else {
            throw AppleIDError(.missingSubject, detail: "sub missing, empty, only white space or not a string")
        }
        guard !sub.holdsNUL else { throw AppleIDError(.malformed, detail: "sub holds a NUL character") }
        let tokenNonce = try AppleIDClaims.string(claims.nonce, "nonce")
        if nonce == .notSent, tokenNonce != nil {
            throw AppleIDError(.nonceMissing, detail: "token has a nonce, the request none")
        } else if let nonce, nonce != .notSent {
            guard let tokenNonce, nonce.isMatched(by: tokenNonce) else {
                throw AppleIDError(.nonceMismatch, detail: tokenNonce == nil ? "token has no nonce" : "nonce differs")
            }
        }
        guard let expiresAt = jwt.expiresAt else { throw AppleIDError(.malformed, detail: "exp missing") }
        return AppleIdentityToken(
            sub: sub,
            email: try AppleIDClaims.string(claims.email, "email"),
            emailVerified: try AppleIDClaims.flexibleBool(claims.emailVerified, "email_verified"),
            isPrivateEmail: try AppleIDClaims.flexibleBool(claims.isPrivateEmail, "is_private_email"),
            audience: jwt.audience,
            issuedAt: jwt.issuedAt,
            expiresAt: expiresAt,
            nonce: tokenNonce,
            nonceSupported: try AppleIDClaims.flexibleBool(claims.nonceSupported, "nonce_supported"),
            realUserStatus: try AppleIDClaims.integer(claims.realUserStatus, "real_user_status"),
            authTime: try AppleIDClaims.date(claims.authTime, "auth_time"),
            atHash: try AppleIDClaims.string(claims.atHash, "at_hash"),
            cHash: try AppleIDClaims.string(claims.cHash, "c_hash"),
            claimMembers: jwt.claimMembers)
    }

    /// Whether the token's nonce is the request's raw nonce or its SHA-256 in lowercase hexadecimal (Apple's
    /// recommended flow hashes it on the device, `String(format: "%02x", …)`; the web flow's nonce is the same
    /// lowercase hex). Both comparisons always run, in constant time. Found by an audit: uppercase hex passed too,
    /// where the contract's hex is lowercase.
    static func nonce(_ tokenNonce: String, matches requestNonce: String) -> Bool {
        var token = tokenNonce, request = requestNonce
        let hashedHex = request.withUTF8 { SHA256.hexBytes(SHA256.hash(Array($0))) }
        return token.withUTF8 { token in
            let raw = request.withUTF8 { request in constantTimeEquals(token, request) }
            let hashed = hashedHex.withUnsafeBufferPointer { constantTimeEquals(token, $0) }
            return raw || hashed
        }
    }
}
