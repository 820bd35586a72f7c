import Foundation
import Storage

extension SiwaServer {
    /// Users written per transaction by `seedAppleTokens`.
    package static let seedBatch = 500

    /// Stores `count` users with the `sub`s `001.<tag>.<n>` (n from 0), each with the refresh token `token(sub)`
    /// sealed for the first iOS client id, as a sign-in with a code would: what Apple's chores work through, for the
    /// chores benchmark (`Benchmarks/run --chores`) and the tests. The stand-in honours the tokens it seeded.
    package func seedAppleTokens(_ count: Int, tag: String, token: (String) -> String) async throws {
        guard let sealer = services.lifecycle.sealer else {
            throw AppleTokenLifecycle.notConfigured(services.lifecycle.disabledReason ?? "not configured")
        }
        guard let clientID = configuration.iosClientIDs.first ?? configuration.websiteClientID else {
            throw AppleTokenLifecycle.notConfigured("no client id is configured")
        }
        let now = Date()
        for start in stride(from: 0, to: count, by: Self.seedBatch) {
            var statements: [SQL] = []
            for index in start..<min(count, start + Self.seedBatch) {
                let subject = "001.\(tag).\(index)"
                let user = User(name: "", username: subject, email: "\(subject)@example.com", isPrivateEmail: false,
                                siwaIdentifier: subject, createdAt: now, updatedAt: now)
                let sealed = try sealer.seal(token(subject), clientID: clientID)
                statements += [UserRepository.insert(user),
                               AppleTokenRepository.insert(AppleToken(userID: user.id, clientID: clientID,
                                                                      encryptedRefreshToken: sealed, createdAt: now))]
            }
            try await services.database.write(statements)
        }
    }
}

