import Foundation

/// A refresh token Apple issued for a user, kept to revoke it when the user deletes their account.
package struct AppleToken: Sendable, Equatable {
    package var id: UUID
    package var userID: UUID
    /// The Services ID or bundle id the token was issued to.
    package var clientID: String
    /// The refresh token, encrypted by the caller; stored as a BLOB.
    package var encryptedRefreshToken: [UInt8]
    package var createdAt: Date
    /// When the token was revoked at Apple, if it was.
    package var revokedAt: Date?

    package init(
        id: UUID = .timeOrdered(), userID: UUID, clientID: String, encryptedRefreshToken: [UInt8], createdAt: Date,
        revokedAt: Date? = nil
    ) {
        self.id = id
        self.userID = userID
        self.clientID = clientID
        self.encryptedRefreshToken = encryptedRefreshToken
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }
}
