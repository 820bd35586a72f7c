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

    /// What `deleteAccount` did.
    struct AccountDeletion: Sendable {
        /// What the transaction removed and queued; `deleted` is false when another deletion came first.
        var removed: UserRepository.Deletion
        /// Apple tokens revoked at Apple.
        var revoked: Int
        /// Apple tokens queued for `siwa apple retry-revocations`: refused or unreachable, or stored meanwhile.
        var queued: Int
    }

    /// Deletes an account as Apple requires: revokes the user's Apple tokens, then deletes the user, bearer
    /// tokens, sessions and Apple tokens in one transaction; revocations that failed, and Apple tokens a sign-in
    /// stored meanwhile, are queued in it for `siwa apple retry-revocations`, and the account is deleted anyway.
    @discardableResult
    func deleteAccount(_ user: User, logger: Logger) async throws -> AccountDeletion {
        let revocations = try await lifecycle.revokeAll(userID: user.id, logger: logger)
        let removed = try await users.delete(id: user.id, queueing: revocations.failures, besides: revocations.sent)
        let userID = user.id.text(uppercase: false)
        if removed.queuedUnsent > 0 {
            logger.warning("Apple tokens stored while the account was being deleted; queued for retry-revocations",
                           metadata: ["user_id": "\(userID)", "queued": "\(removed.queuedUnsent)"])
        }
        let queued = revocations.failures.count + removed.queuedUnsent
        if removed.deleted {
            logger.info("account deleted", metadata: ["user_id": "\(userID)", "revocations_queued": "\(queued)"])
        }
        return AccountDeletion(removed: removed, revoked: revocations.sent.count - revocations.failures.count,
                               queued: queued)
    }
}
