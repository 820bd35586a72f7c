import CryptoCore
import Foundation
import JOSE
import JSON
import Synchronization

/// The `client_secret` Apple's `/auth/token` and `/auth/revoke` require: an ES256 JWT signed with the team's
/// Sign in with Apple key (`.p8`), minted per client id, cached, and re-minted before it expires.
///
/// Header `{alg: ES256, kid}`; claims `iss` = team id, `iat`, `exp` (at most 180 days later, within Apple's limit),
/// `aud` = `https://appleid.apple.com`, `sub` = the client id (bundle id or Services ID).
///
/// A class behind a lock rather than an actor: every call to Apple asks for a secret, and a cached one is a
/// dictionary lookup, which an actor would turn into two task switches on the caller's event loop.
package final class ClientSecret: Sendable {
    /// The longest life we give a secret: 180 days, inside Apple's limit of an `exp` at most 15,777,000 s (about 182.6
    /// days) from the current time ("Generate and validate tokens", Creating a client secret).
    package static let maximumLifetime: TimeInterval = 180 * 24 * 60 * 60
    /// How long the secrets we mint live.
    package static let defaultLifetime: TimeInterval = 30 * 24 * 60 * 60
    /// A cached secret is replaced when less than this is left of its life.
    package static let renewalMargin: TimeInterval = 24 * 60 * 60
    /// The audience Apple expects.
    package static let audience = "https://appleid.apple.com"

    package let teamID: String
    package let keyID: String
    private let key: ES256PrivateKey
    private let lifetime: TimeInterval
    private let clock: @Sendable () -> Date
    private let cache = Mutex<[String: (secret: String, issuedAt: Date, expiresAt: Date)]>([:])

    /// - Parameters:
    ///   - teamID: `APPLE_TEAM_ID`, the `iss`.
    ///   - keyID: `APPLE_KEY_ID`, the `kid`.
    ///   - key: the `.p8` key.
    ///   - lifetime: how long each secret lives; clamped to Apple's 180 days.
    ///   - clock: the current time.
    package init(teamID: String, keyID: String, key: ES256PrivateKey, lifetime: TimeInterval = defaultLifetime,
                clock: @escaping @Sendable () -> Date = Date.init) {
        self.teamID = teamID
        self.keyID = keyID
        self.key = key
        self.lifetime = min(max(lifetime, 2 * Self.renewalMargin), Self.maximumLifetime)
        self.clock = clock
    }

    /// Loads the `.p8` at `privateKeyPath`.
    /// - Throws: `ClientSecretError` saying whether the file is missing, not readable by this user, not text, or not
    ///   a P-256 PKCS#8 key.
    package static func load(teamID: String, keyID: String, privateKeyPath: String,
                            clock: @escaping @Sendable () -> Date = Date.init) throws -> ClientSecret {
        guard FileManager.default.fileExists(atPath: privateKeyPath) else {
            throw ClientSecretError.keyFileMissing(privateKeyPath)
        }
        guard access(privateKeyPath, R_OK) == 0 else { throw ClientSecretError.keyFileNotReadable(privateKeyPath) }
        guard let data = FileManager.default.contents(atPath: privateKeyPath),
              let pem = String(data: data, encoding: .utf8)
        else { throw ClientSecretError.keyFileUnreadable(privateKeyPath) }
        guard let key = try? ES256PrivateKey(pem: pem) else { throw ClientSecretError.keyMalformed(privateKeyPath) }
        guard !teamID.isEmpty, !keyID.isEmpty else { throw ClientSecretError.missingIdentifiers }
        return ClientSecret(teamID: teamID, keyID: keyID, key: key, clock: clock)
    }

    /// The secret for `clientID`, minted when there is none, the cached one is close to expiring (about once a
    /// month per client id: an ES256 signature, under the lock, so that concurrent callers mint it once), or it was
    /// issued after the current time: the clock was ahead when it was minted and has been set back, and Apple refuses
    /// a secret whose `iat` is in its future (found by an audit: a server whose clock ran a month ahead for a minute
    /// sent that minute's secret, refused as `invalid_client`, until it came close to expiring).
    package func secret(for clientID: String) throws -> String {
        let now = clock()
        return try cache.withLock { cache in
            if let cached = cache[clientID], cached.issuedAt <= now,
               cached.expiresAt.timeIntervalSince(now) > Self.renewalMargin
            {
                return cached.secret
            }
            let issuedAt = now.timeIntervalSince1970.rounded(.down)
            let claims: JSONValue = [
                "iss": .string(teamID), "iat": .number(issuedAt), "exp": .number(issuedAt + lifetime),
                "aud": .string(Self.audience), "sub": .string(clientID),
            ]
            let secret = try JWTSigner.sign(claims: claims, keyID: keyID, key: .es256(key))
            cache[clientID] = (secret, Date(timeIntervalSince1970: issuedAt),
                               Date(timeIntervalSince1970: issuedAt + lifetime))
            return secret
        }
    }

    /// Forgets the cached secret for `clientID`, which Apple refused (`invalid_client`): the next call mints a new
    /// one with the current time, so a secret refused for its times is not sent again (a key Apple refuses is refused
    /// again, at the cost of one signature per call).
    package func discard(for clientID: String) {
        _ = cache.withLock { $0.removeValue(forKey: clientID) }
    }
}

/// Why the Sign in with Apple key cannot be used; said once at start-up.
package enum ClientSecretError: Error, Equatable, CustomStringConvertible {
    case keyFileMissing(String)
    /// The process may not read the file (its permissions, or its folder's).
    case keyFileNotReadable(String)
    case keyFileUnreadable(String)
    case keyMalformed(String)
    case missingIdentifiers

    package var description: String {
        switch self {
        case .keyFileMissing(let path): "APPLE_PRIVATE_KEY_PATH: no file at \(ConfiguredPath.named(path))"
        case .keyFileNotReadable(let path):
            "APPLE_PRIVATE_KEY_PATH: this user may not read \(ConfiguredPath.named(path)) (permission denied)"
        case .keyFileUnreadable(let path):
            "APPLE_PRIVATE_KEY_PATH: cannot read \(ConfiguredPath.named(path)) as text"
        case .keyMalformed(let path):
            "APPLE_PRIVATE_KEY_PATH: \(ConfiguredPath.named(path)) is not a PKCS#8 P-256 private key "
                + "(the .p8 Apple lets you download once)"
        case .missingIdentifiers: "APPLE_TEAM_ID and APPLE_KEY_ID must not be empty"
        }
    }
}
