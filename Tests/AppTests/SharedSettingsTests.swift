import Foundation
import Storage
import TestSupport
import Testing
@testable import App

/// Instances of one PostgreSQL database must share `SIWA_ENCRYPTION_KEY`: the first records its fingerprint, and
/// one with another key refuses to start, naming the variable, with nothing written.
@Suite(.postgres, .serialized, .timeLimit(.minutes(2)))
struct SharedSettingsTests {
    @Test func anInstanceWithAnotherKeyRefusesToStart() async throws {
        let url = try PostgresURL(try await PostgresCluster.sharedCluster().newDatabase())
        let first = [UInt8](repeating: 1, count: 32), second = [UInt8](repeating: 2, count: 32)
        try await TestApp.with(configure: { $0.databaseURL = url; $0.encryptionKey = first }) { _ in }
        try await TestApp.with(configure: { $0.databaseURL = url; $0.encryptionKey = first }) { _ in }
        let refusal = await #expect(throws: SharedSettings.Mismatch.self) {
            try await TestApp.with(configure: { $0.databaseURL = url; $0.encryptionKey = second }) { _ in }
        }
        #expect(refusal?.description.contains("SIWA_ENCRYPTION_KEY") == true)
        #expect(refusal?.description.contains(SharedSettings.fingerprint(of: first)) == true)
        #expect(SharedSettings.fingerprint(of: first).count == 32)
        #expect(SharedSettings.fingerprint(of: first) != SharedSettings.fingerprint(of: second))
    }
}
