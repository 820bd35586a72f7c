import CryptoCore
import Foundation
import JOSE

/// How the stand-in judges a `client_secret`, as Apple does: an ES256 JWT with `sub` = the client id,
/// `aud` = `https://appleid.apple.com`, a `kid` header, not expired, and at most 180 days long. With the
/// operator's public key configured the signature is checked too; without it only the shape and claims.
struct FakeAppleClientSecretCheck: Sendable {
    let publicKey: ES256PublicKey?

    /// Apple refuses client secrets that live longer than six months.
    static let maximumLifetime: TimeInterval = 180 * 24 * 60 * 60

    func isValid(_ secret: String, clientID: String, now: Date) -> Bool {
        guard let jws = try? JWS(compact: secret),
              (try? jws.header.checkPolicy(allowing: [.es256])) != nil,
              jws.header.keyID?.isEmpty == false,
              let claims = try? JSONValue(parsing: jws.payload)
        else { return false }
        if let publicKey, (try? jws.verify(with: publicKey)) == nil { return false }
        guard claims["sub"]?.stringValue == clientID,
              claims["aud"]?.stringValue == "https://appleid.apple.com",
              claims["iss"]?.stringValue?.isEmpty == false,
              let issuedAt = claims["iat"]?.numberValue, let expiresAt = claims["exp"]?.numberValue
        else { return false }
        let current = now.timeIntervalSince1970
        return issuedAt <= current + 60 && expiresAt > current && expiresAt - issuedAt <= Self.maximumLifetime
    }
}
