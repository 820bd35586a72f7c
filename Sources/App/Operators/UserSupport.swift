import Foundation
import HTTPCore
import Logging
import Storage

/// The operators' user support, for requests that arrive by email: `siwa users show <id | sub | email>`,
/// `siwa users export <id>` (the user's own copy, GDPR articles 15 and 20) and `siwa users delete <id>`, which does
/// what `DELETE /api/users/me` does.
package struct UserSupport: Sendable {
    let environment: OperatorEnvironment

    package init(_ environment: OperatorEnvironment) {
        self.environment = environment
    }

    /// What is stored about the one user `query` names (an id, an Apple `sub` or an email), as JSON: the profile,
    /// timestamps, Apple client ids, and counts and expiry times of bearer tokens and sessions.
    /// - Throws: `OperatorError` when no user, or more than one (a shared email), matches.
    package func show(_ query: String) async throws -> String {
        try await environment.withClient { database, _ in
            let repository = UserRecordRepository(database: database)
            let matches = try await repository.users(matching: query)
            guard let user = matches.first else {
                throw OperatorError("no user matches \(query) (give a user id, an Apple sub or an email address)")
            }
            guard matches.count == 1 else {
                throw OperatorError("\(matches.count) users have the email \(query); give one of their ids: "
                    + matches.map(\.id.uuidString).joined(separator: ", ").lowercased())
            }
            return try await repository.record(of: user).summary.json()
        }
    }

    /// Everything stored about the user with `id`, as JSON, with the same redactions as `show`.
    package func export(_ id: String) async throws -> String {
        let userID = try Self.userID(id, command: "export")
        return try await environment.withClient { database, _ in
            let repository = UserRecordRepository(database: database)
            guard let user = try await repository.users(matching: userID.uuidString).first else {
                throw OperatorError("no user has the id \(id)")
            }
            return try await repository.record(of: user).json()
        }
    }

    /// Deletes the user with `id` as `DELETE /api/users/me` does (the same code): their Apple tokens are revoked at
    /// Apple, then the user, bearer tokens, sessions and Apple tokens are deleted in one transaction, with failed
    /// revocations queued in it. Every instance sees the deletion at once: tokens and sessions live in the database.
    /// - Parameter confirm: asked with the user before anything changes; false stops with nothing changed.
    /// - Returns: the line to print.
    package func delete(_ id: String, confirm: (UserRecord) throws -> Bool) async throws -> String {
        let userID = try Self.userID(id, command: "delete")
        return try await environment.withClient { pool, _ in
            try await RefreshTokenKeyCheck.operatorCheck(environment.configuration, database: pool)
            let users = UserRepository(pool: pool)
            guard let user = try await users.find(id: userID) else { throw OperatorError("no user has the id \(id)") }
            let record = try await UserRecordRepository(database: pool).record(of: user)
            guard try confirm(record) else { throw OperatorError("not deleted: user \(id) is unchanged") }
            var logger = Logger(label: "siwa.users")
            logger.logLevel = max(environment.configuration.logLevel, .warning)
            let http = HTTPClient(configuration: environment.configuration.appleClientConfiguration)
            let services = Services(
                configuration: environment.configuration, database: pool,
                appleKeys: AppleKeySet.apple(configuration: environment.configuration, database: pool, client: http,
                                             logger: logger, clock: Date.init),
                http: http, logger: logger
            )
            let active = (record.appleTokens ?? []).filter { $0.revokedAt == nil }.count
            let deletion: AccountService.AccountDeletion
            do {
                deletion = try await services.accounts.deleteAccount(user, logger: logger)
            } catch {
                // The revocations at Apple come first, so a write refused after them (a database locked or gone)
                // leaves a user whose tokens Apple may no longer honour. Found by an audit: the message was SQLite's
                // alone.
                throw OperatorError("user \(id) was not deleted (\(error)); nothing of theirs was removed. Apple may "
                    + "already have revoked their tokens, which revoking again does not harm: run the command again")
            }
            // Another deletion (a second command, the user's own, a notification) came first. Found by an audit:
            // both said they had deleted the user.
            guard deletion.removed.deleted else { throw OperatorError("no user has the id \(id)") }
            var line = "Deleted user \(id) with \(deletion.removed.bearerTokens) bearer token(s) and "
                + "\(deletion.removed.sessions) session(s); Apple tokens revoked: \(deletion.revoked)"
            let queued = deletion.queued
            if active == 0, queued == 0, services.lifecycle.isEnabled {
                line += (record.appleTokens ?? []).isEmpty
                    ? " (none stored: the app never sent an authorizationCode for this user)"
                    : " (Apple had already refused the user's tokens)"
            }
            if queued > 0 {
                let unsent = deletion.removed.queuedUnsent
                var causes: [String] = []
                if queued > unsent { causes.append(services.lifecycle.disabledReason ?? "Apple refused or was unreachable") }
                if unsent > 0 { causes.append("\(unsent) stored by a sign-in while the deletion ran") }
                line += ", queued for `siwa apple retry-revocations`: \(queued) (\(causes.joined(separator: "; ")))"
            }
            return line + "."
        }
    }

    private static func userID(_ text: String, command: String) throws -> UUID {
        guard let id = UUID(uuidString: text) else {
            throw OperatorError("users \(command) takes a user id (a UUID), not \(text); "
                + "find it with `siwa users show <sub or email>`")
        }
        return id
    }
}
