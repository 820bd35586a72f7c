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
            clientKey = try ES256PrivateKey.generate()
            try write(Data(try clientKey.pemRepresentation().utf8), to: clientKeyPath)
        }
        return DevSecrets(clientKeyPath: clientKeyPath, clientKey: clientKey)
    }

    private static func write(_ data: Data, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw FakeAppleError.cannotWriteKeyFile(path)
        }
    }
}
