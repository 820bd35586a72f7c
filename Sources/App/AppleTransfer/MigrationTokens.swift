import AppleID
import Foundation
import IOCore

/// The team's access tokens for Apple's migration endpoint, one per client id, asked for once and reused by every
/// call until shortly before they expire (Apple's "Transferring your apps and users to another team": the
/// `client_credentials` grant with scope `user.migration`). Concurrent callers share one request.
actor MigrationTokens {
    private let client: AppleAuthClient
    /// Monotonic nanoseconds: a token's life is a duration Apple gave (`expires_in`), which a wall clock set back
    /// would stretch. Found by a review: a step back of an hour kept an expired token in use.
    private let clock: @Sendable () -> UInt64
    private var tokens: [String: (value: String, renewAt: UInt64)] = [:]
    private var pending: [String: Task<AppleAuthClient.MigrationAccessToken, any Error>] = [:]

    /// How long before its expiry a token is replaced.
    static let renewalMargin: TimeInterval = 5 * 60
    /// The life assumed for a token whose answer gave none (Apple's are an hour).
    static let assumedLifetime = 3600

    init(client: AppleAuthClient, clock: @escaping @Sendable () -> UInt64 = MonotonicClock.now) {
        self.client = client
        self.clock = clock
    }

    /// The access token for `clientID`, asked of Apple when there is none or it is about to expire.
    /// - Throws: `AppleAuthError` from `/auth/token`.
    func token(for clientID: String) async throws -> String {
        if let cached = tokens[clientID], cached.renewAt > clock() { return cached.value }
        let task: Task<AppleAuthClient.MigrationAccessToken, any Error>
        if let running = pending[clientID] {
            task = running
        } else {
            let client = self.client
            task = Task { try await client.migrationAccessToken(clientID: clientID) }
            pending[clientID] = task
        }
        do {
            let token = try await task.value
            pending[clientID] = nil
            let lifetime = token.expiresIn > 0 ? token.expiresIn : Self.assumedLifetime
            let reuse = max(TimeInterval(lifetime) - Self.renewalMargin, 1)
            tokens[clientID] = (token.value, clock() + MonotonicClock.nanoseconds(.seconds(reuse)))
            return token.value
        } catch {
            pending[clientID] = nil
            throw error
        }
    }
}
