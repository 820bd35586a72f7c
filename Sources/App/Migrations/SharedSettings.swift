import CryptoCore
import Storage

/// Settings that every instance on one PostgreSQL database must share, recorded by the first instance that starts
/// and checked by each later one, so that a mismatch stops the start instead of breaking silently: today the
/// refresh-token key (`SIWA_ENCRYPTION_KEY`), by a fingerprint that does not reveal it.
enum SharedSettings {
    /// The row holding the key's fingerprint.
    static let keyFingerprintName = "refresh_token_key_fingerprint"

    /// Why an instance refuses to start.
    struct Mismatch: Error, CustomStringConvertible {
        var description: String
    }

    /// A fingerprint of `key`: the first 16 bytes of SHA-256 over a fixed label and the key, in hex. It identifies
    /// the key without letting anyone who reads the database recover it.
    static func fingerprint(of key: [UInt8]) -> String {
        let digest = SHA256.hash(Array("siwa refresh-token key fingerprint v1".utf8) + key)
        return SHA256.hex(Array(digest.prefix(16)))
    }

    /// Records this instance's settings when none are stored, then checks that the stored ones are this instance's.
    /// - Throws: `Mismatch`, naming the variable, when another instance of this database uses another key.
    static func check(_ configuration: Configuration, database: any DatabaseClient) async throws {
        guard let key = configuration.encryptionKey else { return }
        try await database.write(SQL("INSERT INTO shared_settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
                                     [keyFingerprintName, fingerprint(of: key)]))
        if let mismatch = try await mismatch(configuration, database: database) { throw mismatch }
    }

    /// Whether the stored settings differ from this instance's, writing nothing (`siwa doctor`, the operators'
    /// commands): nil when they agree or none are stored.
    static func mismatch(_ configuration: Configuration, database: any DatabaseClient) async throws -> Mismatch? {
        guard let key = configuration.encryptionKey else { return nil }
        let mine = fingerprint(of: key)
        let stored = try await database.readOne(SQL("SELECT value FROM shared_settings WHERE name = ?",
                                                    [keyFingerprintName])) { try $0[0] as String }
        guard let stored, stored != mine else { return nil }
        return Mismatch(description: "SIWA_ENCRYPTION_KEY differs from the key the other instances of this database "
            + "use (fingerprint \(mine), stored \(stored)): every instance must have the same key to open the refresh "
            + "tokens the others sealed")
    }
}
