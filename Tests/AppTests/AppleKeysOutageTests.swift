import Foundation
import HTTPCore
import Testing
@testable import App

/// Apple's keys: 503 when none can be had, and the last good set kept in SQLite across a restart.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct AppleKeysOutageTests {
    @Test func noKeysAtAllIs503AndWritesNothing() async throws {
        try await TestApp.with { app in
            let token = try app.identityToken()
            await app.apple.shutdown()
            let response = try await app.sendJSON(.POST, "/api/users/siwa", ["token": token])
            #expect(response.status == .serviceUnavailable)
            #expect(try response.json()["error"] as? Bool == true)
            #expect(try await app.count("users") == 0)
        }
    }

    @Test func lastGoodKeysSurviveARestartDuringAnOutage() async throws {
        let directory = TestApp.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let token = try await TestApp.with(directory: directory) { first in
            let signedIn = try await first.sendJSON(.POST, "/api/users/siwa", ["token": try first.identityToken()])
            #expect(signedIn.status == .ok)
            return try first.identityToken(subject: "001.after.restart")
        }

        try await TestApp.with(directory: directory, configure: { configuration in
            configuration.appleBaseURL = "http://127.0.0.1:9"
        }) { restarted in
            let response = try await restarted.sendJSON(.POST, "/api/users/siwa", ["token": token])
            #expect(response.status == .ok)
        }
    }
}
