import AppleID
import CryptoCore
import Foundation
import JOSE
import JSON

/// The stand-in's RS256 signing key, kept as a PKCS#8 PEM file (mode 0600) so tokens stay valid across restarts.
package struct FakeAppleKeys: Sendable {
    /// The key file used when none is named.
    package static let defaultPath = "fake-apple-key.pem"

    package let privateKey: RSAPrivateKey
    /// The `kid` published in the JWKS: derived from the public key, so it is stable for a given file.
    package let keyID: String

    package init(privateKey: RSAPrivateKey) throws {
        self.privateKey = privateKey
        let publicKey = try privateKey.publicKey
        keyID = "fake-" + String(Base64URL.encode(SHA256.hash(publicKey.modulus + publicKey.exponent)).prefix(10))
    }

    /// Loads the key a running stand-in signs with: `path` must exist (a new key there would sign what no stand-in
    /// serves the key of).
    package static func load(path: String) throws -> FakeAppleKeys {
        guard FileManager.default.fileExists(atPath: path) else { throw FakeAppleError.noKeyFile(path) }
        return try loadOrCreate(path: path)
    }

    /// Loads the key at `path`, or generates one and writes it there.
    package static func loadOrCreate(path: String) throws -> FakeAppleKeys {
        if FileManager.default.fileExists(atPath: path) { return try read(path) }
        let key = try RSAPrivateKey.generate(bits: 2048)
        guard try DevSecrets.place(try key.pemRepresentation(), at: path) else { return try read(path) }
        return try FakeAppleKeys(privateKey: key)
    }

    /// The stand-in's key in `path`. - Throws: `FakeAppleError.unusableKeyFile`, one line naming the file, when it
    /// cannot be read or holds no RSA private key (found by a review: Foundation's error was printed whole).
    private static func read(_ path: String) throws -> FakeAppleKeys {
        guard let handle = FileHandle(forReadingAtPath: path), let data = try? handle.readToEnd(),
              let pem = String(data: data, encoding: .utf8) else {
            throw FakeAppleError.unusableKeyFile(path, "cannot be read as text")
        }
        do {
            return try FakeAppleKeys(privateKey: try RSAPrivateKey(pem: pem))
        } catch {
            throw FakeAppleError.unusableKeyFile(path, "holds no PEM RSA private key")
        }
    }

    /// The JWKS document `/auth/keys` serves.
    package func jwksJSON() throws -> [UInt8] {
        let jwk = try privateKey.publicKey.jwk(keyID: keyID)
        return JSONValue.object(["keys": .array([.object(jwk.members)])]).serialized()
    }

    /// An identity token as Apple mints them: RS256, header `{kid, alg}`, Apple's issuer.
    package func mintIdentityToken(_ request: IdentityTokenRequest, now: Date = Date()) throws -> String {
        let issuedAt = now.timeIntervalSince1970.rounded(.down)
        var claims: [String: JSONValue] = [
            "iss": .string(IdentityTokenVerifier.appleIssuer),
            "aud": .string(request.audience),
            "exp": .number(issuedAt + request.lifetime.rounded(.down)),
            "iat": .number(issuedAt),
            "sub": .string(request.subject),
            "auth_time": .number(issuedAt),
            "nonce_supported": true,
        ]
        if let email = request.email {
            claims["email"] = .string(email)
            claims["email_verified"] = "true"
            claims["is_private_email"] = request.isPrivateEmail ? "true" : "false"
        }
        if let nonce = request.nonce { claims["nonce"] = .string(nonce) }
        claims.merge(request.extraClaims) { _, extra in extra }
        return try JWTSigner.sign(claims: .object(claims), keyID: keyID, key: .rs256(privateKey))
    }

    /// The stable Apple user identifier the stand-in gives an email address, shaped like Apple's
    /// (`000123.<32 hex>.0456`): the same person always gets the same `sub`.
    package static func subject(forEmail email: String) -> String {
        let digest = SHA256.hex(SHA256.hash(email.lowercased()))
        return "001\(digest.prefix(3)).\(digest.dropFirst(3).prefix(32)).0\(digest.suffix(3))"
    }

    /// A private-relay address for `email`, stable per address.
    package static func relayAddress(forEmail email: String) -> String {
        let digest = SHA256.hex(SHA256.hash("relay:" + email.lowercased()))
        return "\(digest.prefix(10))@\(relayDomain)"
    }

    /// The domain of Apple's private relay addresses.
    package static let relayDomain = "privaterelay.appleid.com"

    /// Whether `email` is at Apple's private relay domain.
    package static func isRelayAddress(_ email: String) -> Bool {
        email.lowercased().hasSuffix("@" + relayDomain)
    }
}

/// Failures of the stand-in's own set-up.
package enum FakeAppleError: Error, CustomStringConvertible {
    case cannotWriteKeyFile(String)
    /// The stand-in's key file exists but cannot be used: its path, and why.
    case unusableKeyFile(String, String)
    /// No stand-in key file where one is needed.
    case noKeyFile(String)
    /// A `--team` that is not `TEAM_ID:KEY_ID:PATH` of a readable ES256 key.
    case malformedTeamKey(String)
    /// The operator's key named by `--client-secret-key` or `APPLE_PRIVATE_KEY_PATH` cannot be read.
    case unreadableOperatorKey(String)

    package var description: String {
        switch self {
        case .cannotWriteKeyFile(let path): "cannot write the stand-in's key file at \(path)"
        case .unusableKeyFile(let path, let reason):
            "the stand-in's key file \(ConfiguredPath.named(path)) \(reason); give another --key-file, or remove it "
                + "to make a new key"
        case .noKeyFile(let path):
            "no stand-in key file at \(path): run this where `siwa fake-apple` runs, or give its --key-file"
        case .malformedTeamKey(let reason): "--team: \(reason)"
        case .unreadableOperatorKey(let path):
            "APPLE_PRIVATE_KEY_PATH (or --client-secret-key): no readable key at \(ConfiguredPath.named(path))"
        }
    }
}
