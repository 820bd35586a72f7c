import CryptoCore
import Foundation
import JOSE

/// How the stand-in judges a `client_secret`, as Apple does: an ES256 JWT with `sub` = the client id,
/// `aud` = `https://appleid.apple.com`, a `kid` header, not expired, and at most 180 days long. With the key it
/// knows (`knownKey`: the public half of a `.p8`, its team id and key id) it is Apple: the signature must verify
/// with that key, `iss` must be its team id and the header's `kid` its key id, or the answer is `invalid_client`.
/// Without one (in-process tests only) the shape and claims are checked.
struct FakeAppleClientSecretCheck: Sendable {
    /// A Sign in with Apple key as Apple knows it.
    struct KnownKey: Sendable {
        var publicKey: ES256PublicKey
        var teamID: String
        var keyID: String
    }

    let knownKey: KnownKey?

    /// Apple refuses client secrets that live longer than six months.
    static let maximumLifetime: TimeInterval = 180 * 24 * 60 * 60

    func isValid(_ secret: String, clientID: String, now: Date) -> Bool {
        guard let jws = try? JWS(compact: secret),
              (try? jws.header.checkPolicy(allowing: [.es256])) != nil,
              let keyID = jws.header.keyID, !keyID.isEmpty,
              let claims = try? JSONValue(parsing: jws.payload)
        else { return false }
        if let knownKey {
            guard keyID == knownKey.keyID, claims["iss"]?.stringValue == knownKey.teamID,
                  (try? jws.verify(with: knownKey.publicKey)) != nil
            else { return false }
        }
        guard claims["sub"]?.stringValue == clientID,
              claims["aud"]?.stringValue == "https://appleid.apple.com",
              claims["iss"]?.stringValue?.isEmpty == false,
              let issuedAt = claims["iat"]?.numberValue, let expiresAt = claims["exp"]?.numberValue
        else { return false }
        let current = now.timeIntervalSince1970
        return issuedAt <= current + 60 && expiresAt > current && expiresAt - issuedAt <= Self.maximumLifetime
    }
}
