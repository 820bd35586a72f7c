import AppleID
import Web

/// The Sign in with Apple key of `APPLE_PRIVATE_KEY_PATH`, loaded at `siwa serve`'s start, before a database is
/// opened or created: an operator who set the key wants code exchange and revocation (the App Store requires
/// revoking at account deletion), so a key that cannot be used stops the start naming the variable, as the TLS
/// files do. Without the three variables the lifecycle is off, and the server says so.
enum AppleKeyFileCheck {
    /// - Throws: `ConfigurationError` naming `APPLE_PRIVATE_KEY_PATH` with why its file cannot be used.
    static func check(_ configuration: Configuration) throws {
        guard let key = configuration.appleKey else { return }
        do {
            _ = try ClientSecret.load(teamID: key.teamID, keyID: key.keyID, privateKeyPath: key.privateKeyPath)
        } catch let error as ClientSecretError {
            let reason = "\(error)".replacingOccurrences(of: "APPLE_PRIVATE_KEY_PATH: ", with: "")
            throw ConfigurationError.malformed(name: "APPLE_PRIVATE_KEY_PATH", expected: "a readable .p8, the EC P-256 "
                + "private key of APPLE_KEY_ID (\(reason)); unset APPLE_TEAM_ID, APPLE_KEY_ID and "
                + "APPLE_PRIVATE_KEY_PATH to run without code exchange and revocation")
        }
    }
}
