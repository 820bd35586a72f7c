import AppleID
import CryptoCore
@testable import FakeApple
import Foundation
import Synchronization
import Testing
@testable import App

/// The migration endpoint's access token is reused for its life less `renewalMargin`, measured on the monotonic
/// clock: a wall clock set back cannot stretch it past the life Apple gave it. Found by a review: after a step back
/// of an hour, the token was sent for an hour after its end, and every `/auth/usermigrationinfo` call was refused.
struct MigrationTokensTests {
    /// `body` with the stand-in and an Apple client whose client secret it accepts.
    private func withStandIn(_ body: (AppleAuthClient) async throws -> Void) async throws {
        try await TestApp.withDevStandIn { standIn, secrets in
            let secret = ClientSecret(teamID: DevSecrets.teamID, keyID: DevSecrets.keyID, key: secrets.clientKey)
            try await body(AppleAuthClient(baseURL: standIn.baseURL, clientSecret: secret))
        }
    }

    @Test func aTokenIsReusedUntilItsMarginAndRenewedAfter() async throws {
        let now = Atomic<UInt64>(1_000_000_000)
        func advance(seconds: UInt64) { now.add(seconds * 1_000_000_000, ordering: .relaxed) }
        try await withStandIn { client in
            let tokens = MigrationTokens(client: client, clock: { now.load(ordering: .relaxed) })
            let first = try await tokens.token(for: "com.example.app")
            // The stand-in's tokens live an hour: reused for 3,600 - 300 s, renewed after.
            advance(seconds: 3_600 - UInt64(MigrationTokens.renewalMargin) - 1)
            #expect(try await tokens.token(for: "com.example.app") == first)
            advance(seconds: 1)
            let second = try await tokens.token(for: "com.example.app")
            #expect(second != first)
            #expect(try await tokens.token(for: "com.example.app") == second)
        }
    }
}
