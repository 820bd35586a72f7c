import CryptoCore
import Foundation

/// The development stand-ins for an operator's secrets, kept beside the stand-in's key file so they survive
/// restarts: a `.p8`-style ES256 key (the client secret's signer) and the refresh-token encryption key.
package struct DevSecrets {
    /// The team id of the development key (`APPLE_TEAM_ID` for the stand-in).
    package static let teamID = "DEVTEAM001"
    /// The key id of the development key (`APPLE_KEY_ID` for the stand-in).
    package static let keyID = "DEVKEY0001"

    /// What the development `.p8` adds to the stand-in's key file name.
    package static let clientKeySuffix = ".client.p8"

    package let clientKeyPath: String
    package let clientKey: ES256PrivateKey
    package let encryptionKey: [UInt8]

    /// Loads the files next to `keyFile`, creating them (mode 0600) when missing.
    package static func loadOrCreate(besides keyFile: String) throws -> DevSecrets {
        let clientKeyPath = keyFile + clientKeySuffix
        let encryptionKeyPath = keyFile + ".encryption-key"
        let fileManager = FileManager.default
        let clientKey: ES256PrivateKey
        if let data = fileManager.contents(atPath: clientKeyPath) {
            clientKey = try ES256PrivateKey(pem: String(decoding: data, as: UTF8.self))
        } else {
            clientKey = try ES256PrivateKey.generate()
            try write(Data(try clientKey.pemRepresentation().utf8), to: clientKeyPath)
        }
        let encryptionKey = try SecretFile.loadOrCreate(path: encryptionKeyPath, count: AES256GCM.keySize)
        return DevSecrets(clientKeyPath: clientKeyPath, clientKey: clientKey, encryptionKey: encryptionKey)
    }

    private static func write(_ data: Data, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw FakeAppleError.cannotWriteKeyFile(path)
        }
    }
}
