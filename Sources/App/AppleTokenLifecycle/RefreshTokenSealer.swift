import CryptoCore

/// Encrypts Apple refresh tokens at rest with AES-256-GCM (`SIWA_ENCRYPTION_KEY`), bound to their client id, so
/// a copy of the database reveals none of them.
struct RefreshTokenSealer: Sendable {
    let key: [UInt8]

    func seal(_ token: String, clientID: String) throws -> [UInt8] {
        try AES256GCM.seal(Array(token.utf8), key: key, associatedData: Array(clientID.utf8))
    }

    /// - Throws: `AEADError` when the box was tampered with, sealed for another client id, or with another key.
    func open(_ box: [UInt8], clientID: String) throws -> String {
        String(decoding: try AES256GCM.open(box, key: key, associatedData: Array(clientID.utf8)), as: UTF8.self)
    }
}
