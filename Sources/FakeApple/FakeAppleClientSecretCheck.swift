import CryptoCore
import Foundation
import JOSE
import JSON
import Synchronization

/// How the stand-in judges a `client_secret`, as Apple does: an ES256 JWT with `sub` = the client id,
/// `aud` = `https://appleid.apple.com`, a `kid` header, not expired, and expiring at most 15,777,000 s from now. With the keys it
/// knows (`knownKeys`: the public half of a `.p8`, its team id and key id, one per team) it is Apple: the signature
/// must verify with the key the header's `kid` names, and `iss` must be that key's team id, or the answer is
/// `invalid_client`. Without any (in-process tests only) the shape and claims are checked.
package struct FakeAppleClientSecretCheck: Sendable {
    /// A Sign in with Apple key as Apple knows it.
    package struct KnownKey: Sendable {
        package var publicKey: ES256PublicKey
        package var teamID: String
        package var keyID: String

        package init(publicKey: ES256PublicKey, teamID: String, keyID: String) {
            self.publicKey = publicKey
            self.teamID = teamID
            self.keyID = keyID
        }
    }

    let knownKeys: [KnownKey]
    /// Secrets whose signature verified already.
    private let verified = VerifiedSecrets()

    init(knownKeys: [KnownKey]) { self.knownKeys = knownKeys }

    /// How far from now a client secret's `exp` may be: "not greater than 15777000 (6 months in seconds) from the
    /// Current UNIX Time on the server" (Apple, "Generate and validate tokens", Creating a client secret).
    static let maximumExpiry: TimeInterval = 15_777_000

    func isValid(_ secret: String, clientID: String, now: Date) -> Bool {
        team(of: secret, clientID: clientID, now: now) != nil
    }

    /// The team whose key signed `secret` (its `iss`), or nil when Apple would answer `invalid_client`.
    func team(of secret: String, clientID: String, now: Date) -> String? {
        guard let jws = try? JWS(compact: secret),
              (try? jws.header.checkPolicy(allowing: [.es256])) != nil,
              let keyID = jws.header.keyID, !keyID.isEmpty,
              let claims = try? JSONValue(parsing: jws.payload),
              let team = claims["iss"]?.stringValue, !team.isEmpty
        else { return nil }
        if !knownKeys.isEmpty {
            guard let known = knownKeys.first(where: { $0.keyID == keyID }), team == known.teamID else { return nil }
            if !verified.contains(secret, keyID: keyID) {
                guard (try? jws.verify(with: known.publicKey)) != nil else { return nil }
                verified.remember(secret, keyID: keyID)
            }
        }
        guard claims["sub"]?.stringValue == clientID,
              claims["aud"]?.stringValue == "https://appleid.apple.com",
              let issuedAt = claims["iat"]?.numberValue, let expiresAt = claims["exp"]?.numberValue
        else { return nil }
        let current = now.timeIntervalSince1970
        guard issuedAt <= current + 60, expiresAt > current, expiresAt - current <= Self.maximumExpiry else {
            return nil
        }
        return team
    }
}

/// The last client secret whose signature verified, for each key id. A server sends one secret for as long as it
/// lives, so its ES256 signature (about 60 µs of the stand-in's CPU) is checked once; the claims, expiry included,
/// are checked on every call.
private final class VerifiedSecrets: Sendable {
    private let last = Mutex<[String: String]>([:])

    func contains(_ secret: String, keyID: String) -> Bool { last.withLock { $0[keyID] == secret } }
    func remember(_ secret: String, keyID: String) { last.withLock { $0[keyID] = secret } }
}

extension FakeAppleClientSecretCheck.KnownKey {
    /// A team's key given as `TEAM_ID:KEY_ID:PATH`, `PATH` a `.p8` or its PEM public half.
    /// - Throws: `FakeAppleError.malformedTeamKey` naming what is wrong.
    init(teamKey: String) throws {
        let parts = teamKey.split(separator: ":", maxSplits: 2).map(String.init)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw FakeAppleError.malformedTeamKey("\(teamKey) is not TEAM_ID:KEY_ID:PATH")
        }
        guard let pem = try? String(contentsOfFile: parts[2], encoding: .utf8) else {
            throw FakeAppleError.malformedTeamKey("cannot read \(parts[2])")
        }
        guard let key = (try? ES256PrivateKey(pem: pem).publicKey) ?? (try? ES256PublicKey(pem: pem)) else {
            throw FakeAppleError.malformedTeamKey("\(parts[2]) is not an ES256 key")
        }
        self.init(publicKey: key, teamID: parts[0], keyID: parts[1])
    }
}
