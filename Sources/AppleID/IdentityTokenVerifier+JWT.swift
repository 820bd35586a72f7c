import CryptoCore
import Foundation
import JOSE
import JSON

extension IdentityTokenVerifier {
    /// Verifies any Apple-signed JWT: header policy (RS256 only), key, signature, `iss`, `aud`,
    /// `iat` (required, not in the future, within ``maximumTokenAge`` when set), `nbf` (when present, not in the
    /// future) and `exp`.
    /// - Parameters:
    ///   - token: the compact JWT.
    ///   - requireExpiration: whether `exp` must be present (identity tokens: yes).
    /// - Returns: the raw claims with the matched audience and times.
    package func verifyJWT(_ token: String, requireExpiration: Bool = true) async throws -> VerifiedJWT {
        try await verifiedClaims(token, requireExpiration: requireExpiration).jwt
    }

    /// ``verifyJWT(_:requireExpiration:)`` plus the claims already picked out, for ``verify(_:nonce:)``.
    func verifiedClaims(_ token: String, requireExpiration: Bool) async throws -> (jwt: VerifiedJWT, claims: AppleIDClaims) {
        let jws = try parsed(token)
        guard let kid = jws.header.keyID, !kid.isEmpty else { throw AppleIDError(.malformed, detail: "header lacks kid") }
        let key: RSAPublicKey
        do {
            key = try await keys.rsaKey(for: kid)
        } catch let error as AppleIDError {
            throw error
        } catch {
            throw AppleIDError(.keysUnavailable, detail: "key provider failed: \(type(of: error))")
        }
        do {
            try jws.verify(with: key)
        } catch let error as JWTError {
            throw AppleIDError(error)
        }
        return try checkClaims(header: jws.header, members: try Self.claimMembers(ofPayload: jws.payload),
                               requireExpiration: requireExpiration)
    }

    /// `token` parsed within `limits`, its header allowed by the policy (RS256 only; `jku`, `x5u`, `jwk` never
    /// followed).
    func parsed(_ token: String) throws -> JWS {
        do {
            let jws = try JWS(compact: token, limits: limits)
            _ = try jws.header.checkPolicy(allowing: Self.allowedAlgorithms)
            return jws
        } catch let error as JWTError {
            throw AppleIDError(error)
        }
    }

    /// `token`'s header (allowed by the same policy as `parsed(_:)`) and payload, its signature not decoded: for an
    /// ID token from the token endpoint, which TLS authenticates.
    func parsedUnverified(_ token: String) throws -> (header: JOSEHeader, payload: [UInt8]) {
        do {
            let content = try JWS.unverifiedContent(compact: token, limits: limits)
            _ = try content.header.checkPolicy(allowing: Self.allowedAlgorithms)
            return content
        } catch let error as JWTError {
            throw AppleIDError(error)
        }
    }

    /// The members of a token's claims object, its decoded payload.
    static func claimMembers(ofPayload payload: [UInt8]) throws -> [JSONMember] {
        do {
            return try JSONValue.parseObjectMembers(payload)
        } catch {
            throw AppleIDError(.malformed, detail: "claims are not a JSON object")
        }
    }

    /// The claim checks of ``verifyJWT(_:requireExpiration:)`` on already verified members (internal, not private,
    /// so the claims fuzz target can reach them without a signature).
    func checkClaims(
        header: JOSEHeader, members: [JSONMember], requireExpiration: Bool
    ) throws -> (jwt: VerifiedJWT, claims: AppleIDClaims) {
        let claims = AppleIDClaims(members)
        guard case .string(let iss)? = claims.iss, iss == issuer else {
            throw AppleIDError(.wrongIssuer, detail: "iss is not \(issuer)")
        }
        guard let audience = try claims.audience(in: clientIDs) else {
            throw AppleIDError(.wrongAudience, detail: "aud matches no configured client id")
        }
        let now = clock()
        let expiresAt = try AppleIDClaims.date(claims.exp, "exp")
        if let expiresAt {
            guard now.timeIntervalSince(expiresAt) <= leeway else { throw AppleIDError(.expired, detail: "exp passed") }
        } else if requireExpiration {
            throw AppleIDError(.malformed, detail: "exp missing")
        }
        guard let issuedAt = try AppleIDClaims.date(claims.iat, "iat") else { throw AppleIDError(.malformed, detail: "iat missing") }
        guard issuedAt.timeIntervalSince(now) <= leeway else {
            throw AppleIDError(.issuedInFuture, detail: "iat is in the future")
        }
        // Apple's tokens carry no `nbf`; one that does is not accepted before it (RFC 7519 §4.1.5).
        if let notBefore = try AppleIDClaims.date(claims.nbf, "nbf"), notBefore.timeIntervalSince(now) > leeway {
            throw AppleIDError(.issuedInFuture, detail: "nbf is in the future")
        }
        if let maximumTokenAge, now.timeIntervalSince(issuedAt) > maximumTokenAge + leeway {
            throw AppleIDError(.tooOld, detail: "iat older than \(Int(maximumTokenAge)) s")
        }
        let jwt = VerifiedJWT(header: header, claimMembers: members, audience: audience, issuedAt: issuedAt, expiresAt: expiresAt)
        return (jwt, claims)
    }
}
