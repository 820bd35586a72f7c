import CryptoCore
import Foundation

/// The development stand-in for an operator's `.p8`, kept beside the stand-in's key file so it survives restarts:
/// an ES256 key, the client secret's signer. The refresh-token key is not one of them: `siwa dev` keeps it where
/// `siwa serve` does, beside the database.
package struct DevSecrets {
    /// The team id of the development key (`APPLE_TEAM_ID` for the stand-in).
    package static let teamID = "DEVTEAM001"
    /// The key id of the development key (`APPLE_KEY_ID` for the stand-in).
    package static let keyID = "DEVKEY0001"

    /// What the development `.p8` adds to the stand-in's key file name.
    package static let clientKeySuffix = ".client.p8"

    package let clientKeyPath: String
    package let clientKey: ES256PrivateKey

    /// Where `siwa dev` kept its refresh-token key before it kept it beside the database, next to `keyFile`.
    package static func legacyEncryptionKeyPath(besides keyFile: String) -> String { keyFile + ".encryption-key" }

    /// Loads the `.p8` next to `keyFile`, creating it (mode 0600) when missing.
    package static func loadOrCreate(besides keyFile: String) throws -> DevSecrets {
        let clientKeyPath = keyFile + clientKeySuffix
        let fileManager = FileManager.default
        let clientKey: ES256PrivateKey
        if let data = fileManager.contents(atPath: clientKeyPath) {
            clientKey = try ES256PrivateKey(pem: String(decoding: data, as: UTF8.self))
        } else {
            let generated = try ES256PrivateKey.generate()
            clientKey = try place(try generated.pemRepresentation(), at: clientKeyPath)
                ? generated : try ES256PrivateKey(pem: String(contentsOfFile: clientKeyPath, encoding: .utf8))
        }
        return DevSecrets(clientKeyPath: clientKeyPath, clientKey: clientKey)
    }

    /// Writes a new key file `pem` at `path`, mode 0600 from its creation on (`SecretFile.place`: another local
    /// user could otherwise open it before a later `chmod`, found by a review); false when another process wrote
    /// one there first.
    static func place(_ pem: String, at path: String) throws -> Bool {
        do {
            return try SecretFile.place(path: path, bytes: Array(pem.utf8))
        } catch {
            throw FakeAppleError.cannotWriteKeyFile(path)
        }
    }
}
