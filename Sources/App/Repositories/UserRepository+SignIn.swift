import Foundation
import Storage

extension UserRepository {
    /// The result of `signIn(_:token:)`.
    package struct SignIn: Sendable, Equatable {
        /// The stored user: the existing one (with a newer email applied), or `candidate` when it was created.
        package var user: User
        /// The stored token, issued to `user`, when one was asked for.
        package var token: BearerToken?
        /// Whether `user` was created by this call.
        package var created: Bool
    }

    /// Why a sign-in wrote nothing.
    package enum SignInError: Error, Equatable {
        /// A new user needs an email and the identity token had none.
        case missingEmail
    }

    /// The sign-in hot path in one write transaction: finds the user by `candidate.siwaIdentifier` (never by
    /// email), creating `candidate` when there is none, and stores `token` for that user (its `userID` is
    /// replaced). For a returning user, a different non-empty email in `candidate` replaces the stored one, and a
    /// name fills a stored empty name (Apple sends the name only once).
    ///
    /// Two concurrent first sign-ins of the same Apple account both succeed with the same user, since writes
    /// run one after another on the writer connection.
    /// `appleToken` (Apple's refresh token from a code exchange) is stored for the user in the same transaction,
    /// and so is `nonce`, the use of a web sign-in's nonce, first: a nonce used before writes nothing.
    /// - Throws: `SignInError.missingEmail` (nothing written) for a new user without an email;
    ///   `UsedNonceRepository.AlreadyUsed` (nothing written) when `nonce` signed in before.
    package func signIn(_ candidate: User, token: BearerToken?, appleToken: AppleToken? = nil,
                        nonce: UsedNonceRepository.Use? = nil) async throws -> SignIn {
        try await pool.write { db in
            if let nonce { try UsedNonceRepository.record(nonce, into: db) }
            let existing = try db.fetchOne(
                sql: "SELECT \(Self.columns) FROM users WHERE siwa_identifier = ?",
                arguments: [candidate.siwaIdentifier], User.init(row:))
            var user: User
            if var existing {
                if !candidate.email.isEmpty,
                   candidate.email != existing.email || candidate.isPrivateEmail != existing.isPrivateEmail {
                    existing.email = candidate.email
                    existing.isPrivateEmail = candidate.isPrivateEmail
                    existing.updatedAt = candidate.updatedAt
                    try db.execute(
                        sql: "UPDATE users SET email = ?, is_private_email = ?, updated_at = ? WHERE id = ?",
                        arguments: [existing.email, existing.isPrivateEmail, existing.updatedAt, existing.id])
                }
                if existing.name.isEmpty, !candidate.name.isEmpty {
                    existing.name = candidate.name
                    existing.updatedAt = candidate.updatedAt
                    try db.execute(sql: "UPDATE users SET name = ?, updated_at = ? WHERE id = ?",
                                   arguments: [existing.name, existing.updatedAt, existing.id])
                }
                user = existing
            } else {
                guard !candidate.email.isEmpty else { throw SignInError.missingEmail }
                try Self.insert(candidate, into: db)
                user = candidate
            }
            var stored = token
            if var token {
                token.userID = user.id
                try TokenRepository.insert(token, into: db)
                stored = token
            }
            if var appleToken {
                appleToken.userID = user.id
                try AppleTokenRepository.insert(appleToken, into: db)
            }
            return SignIn(user: user, token: stored, created: existing == nil)
        }
    }
}
