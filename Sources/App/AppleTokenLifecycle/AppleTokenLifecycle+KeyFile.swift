import CryptoCore

extension AppleTokenLifecycle {
    /// Copies the refresh-token key at `legacyPath` to `keyFilePath(databasePath:)` when the database has no key
    /// file yet, so the tokens it sealed stay readable once the key is looked for there; nothing happens when there
    /// is no key at `legacyPath` or the database has a key already (never replaced). For `siwa dev`, which kept its
    /// key beside the stand-in's key file before it kept it where `siwa serve` and `siwa backup` look for it.
    /// - Throws: `SecretFile.Failure` when a key file cannot be read or written.
    package static func adoptKeyFile(from legacyPath: String, databasePath: String) throws {
        let path = keyFilePath(databasePath: databasePath)
        guard try SecretFile.load(path: path, count: AES256GCM.keySize) == nil,
              let legacy = try SecretFile.load(path: legacyPath, count: AES256GCM.keySize) else { return }
        _ = try SecretFile.create(path: path, bytes: legacy)
    }
}
