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

    /// Found by an audit: with another `SIWA_ENCRYPTION_KEY`, `siwa users delete` deleted the user and queued a
    /// revocation no instance could open, and `siwa doctor` said all was well. Both refuse now, changing nothing.
    @Test func theOperatorsCommandsRefuseAnotherKeyAndChangeNothing() async throws {
        let url = try PostgresURL(try await PostgresCluster.sharedCluster().newDatabase())
        let first = [UInt8](repeating: 3, count: 32)
        let other = String(repeating: "04", count: 32)
        try await TestApp.with(configure: { $0.databaseURL = url; $0.encryptionKey = first }) { app in
            let response = try await app.signInWithAuthorizationCode(subject: "001.pgkey", email: "k@example.com")
            let userID = try #require((try response.json()["user"] as? [String: Any])?["id"] as? String)
            let delete = try await app.command(["users", "delete", userID, "--yes"], ["SIWA_ENCRYPTION_KEY": other])
            #expect(delete.status == 1, "\(delete.output)")
            #expect(delete.output.contains("SIWA_ENCRYPTION_KEY differs"), "\(delete.output)")
            #expect(try await app.count("users") == 1)
            #expect(try await app.count("pending_revocations") == 0)
            let doctor = try await app.command(["doctor"], ["SIWA_ENCRYPTION_KEY": other])
            #expect(doctor.status == 1, "\(doctor.output)")
            #expect(doctor.output.contains("FAIL SIWA_ENCRYPTION_KEY"), "\(doctor.output)")
            let agreed = try await app.command(["doctor"])
            #expect(agreed.output.contains("ok   SIWA_ENCRYPTION_KEY") || agreed.output.contains("ok SIWA_ENCRYPTION_KEY"),
                    "\(agreed.output)")
        }
    }
}
