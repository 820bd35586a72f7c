import CryptoCore

/// Encrypts Apple refresh tokens at rest with AES-256-GCM (`SIWA_ENCRYPTION_KEY`), bound to their client id, so
/// a copy of the database reveals none of them.
struct RefreshTokenSealer: Sendable {
    let key: [UInt8]
    /// The key's schedule, set up once for every seal.
    private let sealer: AES256GCMSealer

    init(key: [UInt8]) throws {
        self.key = key
        sealer = try AES256GCMSealer(key: key)
    }

    func seal(_ token: String, clientID: String) throws -> [UInt8] {
        try sealer.seal(Array(token.utf8), associatedData: Array(clientID.utf8))
    }

    /// - Throws: `AEADError` when the box was tampered with, sealed for another client id, or with another key.
    func open(_ box: [UInt8], clientID: String) throws -> String {
        String(decoding: try AES256GCM.open(box, key: key, associatedData: Array(clientID.utf8)), as: UTF8.self)
    }
}
