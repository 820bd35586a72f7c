import Foundation

/// The last good JSON Web Key Set fetched from Apple, kept for a restart during an outage.
public struct CachedJWKS: Sendable, Equatable {
    /// The response body, as fetched.
    public var body: [UInt8]
    public var fetchedAt: Date

    public init(body: [UInt8], fetchedAt: Date) {
        self.body = body
        self.fetchedAt = fetchedAt
    }
}
