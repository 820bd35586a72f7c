import Foundation

/// An API bearer token as stored: only the SHA-256 of its value is kept.
public struct BearerToken: Sendable, Equatable {
    public var id: UUID
    public var userID: UUID
    /// SHA-256 of the token value, computed by the caller; the value itself is never stored.
    public var valueHash: [UInt8]
    public var createdAt: Date
    public var expiresAt: Date

    public init(id: UUID = .timeOrdered(), userID: UUID, valueHash: [UInt8], createdAt: Date, expiresAt: Date) {
        self.id = id
        self.userID = userID
        self.valueHash = valueHash
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
