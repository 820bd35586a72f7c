import Foundation
import Logging

/// A signed-in user's account: who the request's session names, and deleting the account as Apple requires.
final class AccountService: Sendable {
    let users: UserRepository
    let lifecycle: AppleTokenLifecycle

    init(users: UserRepository, lifecycle: AppleTokenLifecycle) {
        self.users = users
        self.lifecycle = lifecycle
    }

    /// The user a browser session names (its authenticated user id), if it still names one.
    func user(inSession userID: String?) async throws -> User? {
        guard let id = userID.flatMap(UUID.init(uuidString:)) else { return nil }
        return try await users.find(id: id)
    }

    /// Deletes an account as Apple requires: revokes the user's Apple tokens, then deletes the user, bearer
    /// tokens, sessions and Apple tokens in one transaction; revocations that failed are queued in it for
    /// `siwa apple retry-revocations`, and the account is deleted anyway.
    /// - Returns: how many revocations were queued.
    @discardableResult
    func deleteAccount(_ user: User, logger: Logger) async throws -> Int {
        let failures = try await lifecycle.revokeAll(userID: user.id, logger: logger)
        try await users.delete(id: user.id, queueing: failures)
        logger.info("account deleted", metadata: ["user_id": "\(user.id.text(uppercase: false))", "revocations_queued": "\(failures.count)"])
        return failures.count
    }
}
