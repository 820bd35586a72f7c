import CryptoCore
import Storage

/// Refuses to start (or to run a command that opens refresh tokens) on a database whose sealed Apple refresh tokens
/// the configured key cannot open, before the lifecycle makes a key (`AppleTokenLifecycle` creates
/// `<DATABASE_PATH>.refresh-token-key` when it is missing).
///
/// A backup started as `DATABASE_PATH` without its key, or copied beside another database's key, would otherwise
/// run with a new or foreign key: the stored tokens could never be revoked at account deletion, and new ones would
/// be sealed with a key the old ones do not share. Only tokens still in use count (not revoked, or waiting for a
/// revocation retry). The key is checked by opening the newest of them, one AES-GCM open: a key that does not open it
/// is not the one in use. On PostgreSQL the key is `SIWA_ENCRYPTION_KEY`, checked the same way and against the
/// fingerprint the first instance recorded (`SharedSettings`), without writing anything: `siwa doctor` and the
/// operators' commands run it too.
enum RefreshTokenKeyCheck {
    /// Why the server or a command refused: one line naming the database, the key file and the variable.
    struct Refusal: Error, CustomStringConvertible, Equatable {
        var description: String
    }

    /// Tokens still in use, which the key must open: Apple tokens not revoked and revocations to retry.
    static let sealedTokenCount = SQL("""
        SELECT (SELECT count(*) FROM apple_tokens WHERE revoked_at IS NULL)
            + (SELECT count(*) FROM pending_revocations)
        """)
    /// The newest token in use, whose key is the one in use; a revocation to retry when no Apple token is left.
    static let newestSealedTokens = [
        SQL("SELECT client_id, refresh_token FROM apple_tokens WHERE revoked_at IS NULL ORDER BY created_at DESC LIMIT 1"),
        SQL("SELECT client_id, refresh_token FROM pending_revocations ORDER BY created_at DESC LIMIT 1"),
    ]

    /// Checks the key the lifecycle would use against the tokens `database` holds; does nothing without the Apple
    /// key (the lifecycle is off), on PostgreSQL without `SIWA_ENCRYPTION_KEY` (start-up refuses that itself), or
    /// when no token is in use and no other key is recorded.
    /// - Throws: `Refusal` when there is no key (no `SIWA_ENCRYPTION_KEY`, no key file) or the key does not open the
    ///   newest token, or (PostgreSQL) is not the key the database's instances recorded. A key file that cannot be
    ///   read is left to the lifecycle, which says why it is off.
    static func check(_ configuration: Configuration, database: any DatabaseClient) async throws {
        guard configuration.appleKey != nil else { return }
        if let url = configuration.databaseURL {
            return try await checkShared(configuration, url: url, database: database)
        }
        let count = try await database.readOne(sealedTokenCount) { try $0[0] as Int } ?? 0
        guard count > 0 else { return }
        let databasePath = configuration.databasePath
        let keyPath = AppleTokenLifecycle.keyFilePath(databasePath: databasePath)
        let tokens = "\(count) sealed refresh token\(count == 1 ? "" : "s")"
        let key: [UInt8]
        if let variable = configuration.encryptionKey {
            key = variable
        } else {
            let file: [UInt8]?
            do {
                file = try SecretFile.load(path: keyPath, count: AES256GCM.keySize)
            } catch {
                return
            }
            guard let file else {
                throw Refusal(description: "DATABASE_PATH \(databasePath) holds \(tokens) but there is no key at "
                    + "\(keyPath): copy the key the tokens were sealed with there, or set SIWA_ENCRYPTION_KEY")
            }
            key = file
        }
        guard try await !opensNewestToken(database, key: key) else { return }
        let prefix = "DATABASE_PATH \(databasePath) holds \(tokens) that "
        guard configuration.encryptionKey == nil else {
            throw Refusal(description: prefix + "SIWA_ENCRYPTION_KEY does not open (they were sealed with another key): "
                + "set SIWA_ENCRYPTION_KEY to the key they were sealed with, or unset it and copy that key to \(keyPath)")
        }
        throw Refusal(description: prefix + "the key at \(keyPath) does not open (they were sealed with another key): "
            + "copy the key they were sealed with there, or set SIWA_ENCRYPTION_KEY to it")
    }

    /// PostgreSQL's part of `check`: `SIWA_ENCRYPTION_KEY` is the key the instances recorded and opens the newest
    /// token. Found by an audit: with another key, `siwa users delete` deleted the user and queued a revocation that
    /// could not be opened, and `siwa doctor` said all was well.
    private static func checkShared(_ configuration: Configuration, url: PostgresURL, database: any DatabaseClient)
        async throws
    {
        guard let key = configuration.encryptionKey else { return }
        if let mismatch = try await SharedSettings.mismatch(configuration, database: database) {
            throw Refusal(description: mismatch.description)
        }
        let count = try await database.readOne(sealedTokenCount) { try $0[0] as Int } ?? 0
        guard count > 0, try await !opensNewestToken(database, key: key) else { return }
        throw Refusal(description: "DATABASE_URL \(url) holds \(count) sealed refresh token\(count == 1 ? "" : "s") "
            + "that SIWA_ENCRYPTION_KEY does not open (they were sealed with another key): set SIWA_ENCRYPTION_KEY to "
            + "the key they were sealed with, the one every instance of this database uses")
    }

    /// `check` for the operators' commands that open refresh tokens (`siwa apple validate-tokens`,
    /// `retry-revocations`, `siwa users delete`): a refusal is their one line (`OperatorError`).
    static func operatorCheck(_ configuration: Configuration, database: any DatabaseClient) async throws {
        do {
            try await check(configuration, database: database)
        } catch let refusal as Refusal {
            throw OperatorError(refusal.description)
        }
    }

    /// Whether `key` opens the newest token in use.
    private static func opensNewestToken(_ database: any DatabaseClient, key: [UInt8]) async throws -> Bool {
        let sealer = try RefreshTokenSealer(key: key)
        for statement in newestSealedTokens {
            let newest = try await database.readOne(statement) { (try $0[0] as String, try $0[1] as [UInt8]) }
            if let (clientID, box) = newest { return (try? sealer.open(box, clientID: clientID)) != nil }
        }
        return true
    }
}
