import Foundation
import Storage

extension UserRepository {
    /// The result of `signIn(_:token:)`.
    public struct SignIn: Sendable, Equatable {
        /// The stored user: the existing one, or `candidate` when it was created.
        public var user: User
        /// The stored token, issued to `user`.
        public var token: BearerToken
        /// Whether `user` was created by this call.
        public var created: Bool
    }

    /// The sign-in hot path in one write transaction: finds the user by `candidate.siwaIdentifier`, creating
    /// `candidate` when there is none, and stores `token` for that user (its `userID` is replaced).
    ///
    /// Two concurrent first sign-ins of the same Apple account both succeed with the same user, since writes
    /// run one after another on the writer connection.
    public func signIn(_ candidate: User, token: BearerToken) async throws -> SignIn {
        try await pool.write { db in
            var token = token
            let existing = try db.fetchOne(
                sql: "SELECT \(Self.columns) FROM users WHERE siwa_identifier = ?",
                arguments: [candidate.siwaIdentifier], User.init(row:))
            if existing == nil { try Self.insert(candidate, into: db) }
            let user = existing ?? candidate
            token.userID = user.id
            try TokenRepository.insert(token, into: db)
            return SignIn(user: user, token: token, created: existing == nil)
        }
    }
}
