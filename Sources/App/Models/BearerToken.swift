import Foundation

/// An API bearer token as stored: only the SHA-256 of its value is kept.
package struct BearerToken: Sendable, Equatable {
    package var id: UUID
    package var userID: UUID
    /// SHA-256 of the token value, computed by the caller; the value itself is never stored.
    package var valueHash: [UInt8]
    package var createdAt: Date
    package var expiresAt: Date

    package init(id: UUID = .timeOrdered(), userID: UUID, valueHash: [UInt8], createdAt: Date, expiresAt: Date) {
        self.id = id
        self.userID = userID
        self.valueHash = valueHash
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
