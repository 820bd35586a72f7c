import Foundation

/// An Apple token whose revocation failed after its user was deleted, kept to retry it.
package struct PendingRevocation: Sendable, Equatable {
    package var id: UUID
    package var clientID: String
    /// The refresh token, encrypted by the caller.
    package var encryptedToken: [UInt8]
    /// Failed attempts so far.
    package var attempts: Int
    /// Why the last attempt failed (no token material).
    package var lastError: String?
    package var createdAt: Date

    package init(
        id: UUID = .timeOrdered(), clientID: String, encryptedToken: [UInt8], attempts: Int = 0, lastError: String? = nil,
        createdAt: Date
    ) {
        self.id = id
        self.clientID = clientID
        self.encryptedToken = encryptedToken
        self.attempts = attempts
        self.lastError = lastError
        self.createdAt = createdAt
    }
}

extension PendingRevocation {
    /// The retry entry for `token`, whose user is being deleted.
    package init(retrying token: AppleToken, createdAt: Date, lastError: String?) {
        self.init(clientID: token.clientID, encryptedToken: token.encryptedRefreshToken, attempts: 1,
                  lastError: lastError, createdAt: createdAt)
    }
}
