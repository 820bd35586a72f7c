import Foundation

/// Everything stored about one user, as `siwa users show` and `siwa users export` print it. Secrets are never
/// part of it: no bearer token or its hash, no session id or session data, no Apple refresh token.
public struct UserRecord: Sendable, Equatable, Encodable {
    /// The user id, lowercase as the API prints it.
    public var id: String
    public var name: String
    public var username: String
    public var email: String
    public var isPrivateEmail: Bool
    /// Whether Apple forwards mail to the user's relay address (its `email-disabled` / `email-enabled` events).
    public var emailForwardingEnabled: Bool
    /// Apple's user identifier: the identity tokens' `sub`.
    public var sub: String
    public var createdAt: Date
    public var updatedAt: Date
    /// The client ids (bundle ids, Services ID) Apple issued this user's stored refresh tokens to.
    public var appleClientIDs: [String]
    public var bearerTokens: Lifetimes
    public var sessions: Lifetimes
    /// Apple refresh tokens kept for revocation, without the tokens themselves (export only).
    public var appleTokens: [AppleTokenEntry]?

    /// How many of a kind of credential are stored, and until when each works.
    public struct Lifetimes: Sendable, Equatable, Encodable {
        public var count: Int
        public var expiresAt: [Date]
        /// When each was issued, where that is stored (export only).
        public var createdAt: [Date]?
    }

    /// One stored Apple refresh token, described.
    public struct AppleTokenEntry: Sendable, Equatable, Encodable {
        public var clientID: String
        public var createdAt: Date
        public var revokedAt: Date?
    }

    /// The record without the per-item detail `export` adds: counts and expiry times only.
    public var summary: UserRecord {
        var summary = self
        summary.bearerTokens.createdAt = nil
        summary.sessions.createdAt = nil
        summary.appleTokens = nil
        return summary
    }

    /// Pretty-printed JSON with sorted keys and ISO 8601 dates.
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
