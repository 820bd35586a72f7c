import Foundation

/// The last good JSON Web Key Set fetched from Apple, kept for a restart during an outage.
package struct CachedJWKS: Sendable, Equatable {
    /// The response body, as fetched.
    package var body: [UInt8]
    package var fetchedAt: Date

    package init(body: [UInt8], fetchedAt: Date) {
        self.body = body
        self.fetchedAt = fetchedAt
    }
}
