import Foundation

/// Everything stored about one user, as `siwa users show` and `siwa users export` print it. Secrets are never
/// part of it: no bearer token or its hash, no session id or session data, no Apple refresh token.
package struct UserRecord: Sendable, Equatable, Encodable {
    /// The user id, lowercase as the API prints it.
    package var id: String
    package var name: String
    package var username: String
    package var email: String
    package var isPrivateEmail: Bool
    /// Whether Apple forwards mail to the user's relay address (its `email-disabled` / `email-enabled` events).
    package var emailForwardingEnabled: Bool
    /// When the last of those events happened, by Apple's clock (export only).
    package var emailEventAt: Date?
    /// When Apple issued the identity token that set `email` (export only; null for one set before this was kept).
    package var emailSetAt: Date?
    /// When the user last stopped using Sign in with Apple with the app (`consent-revoked`, or a refresh token
    /// Apple no longer honours): identity tokens issued before it no longer sign in.
    package var consentRevokedAt: Date?
    /// Apple's user identifier: the identity tokens' `sub`.
    package var sub: String
    package var createdAt: Date
    package var updatedAt: Date
    /// The client ids (bundle ids, Services ID) Apple knows the user by: the one they last signed in with, then
    /// those Apple issued their stored refresh tokens to.
    package var appleClientIDs: [String]
    /// Where the app's move to another team (TN3159) stands for the user; nil when it never began for them.
    package var transfer: Transfer?
    package var bearerTokens: Lifetimes
    package var sessions: Lifetimes
    /// Apple refresh tokens kept for revocation, without the tokens themselves (export only).
    package var appleTokens: [AppleTokenEntry]?

    /// How many of a kind of credential are stored, and until when each works.
    package struct Lifetimes: Sendable, Equatable, Encodable {
        package var count: Int
        package var expiresAt: [Date]
        /// When each was issued, where that is stored (export only; null for a session stored by a build that kept
        /// no time).
        package var createdAt: [Date?]?
        /// When Apple issued the identity token each was issued for (export only; null for one from before this
        /// was kept).
        package var identityIssuedAt: [Date?]?
    }

    /// The user's part of an app transfer: the identifier Apple gave for the receiving team, and when the user's
    /// `sub` and e-mail were replaced by the receiving team's.
    package struct Transfer: Sendable, Equatable, Encodable {
        package var transferSub: String?
        package var targetTeam: String?
        package var transferredAt: Date?
        /// When the sending team's export asked Apple for `transferSub`.
        package var exportedAt: Date?
    }

    /// One stored Apple refresh token, described.
    package struct AppleTokenEntry: Sendable, Equatable, Encodable {
        package var clientID: String
        package var createdAt: Date
        /// When Apple last said it was still good (`validate-tokens`).
        package var checkedAt: Date?
        package var revokedAt: Date?
    }

    /// The record without the per-item detail `export` adds: counts and expiry times only.
    package var summary: UserRecord {
        var summary = self
        summary.bearerTokens.createdAt = nil
        summary.bearerTokens.identityIssuedAt = nil
        summary.sessions.createdAt = nil
        summary.sessions.identityIssuedAt = nil
        summary.appleTokens = nil
        summary.emailEventAt = nil
        summary.emailSetAt = nil
        return summary
    }

    /// Pretty-printed JSON with sorted keys and ISO 8601 dates.
    package func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
