import Foundation
import HTTPCore
import Testing
@testable import App

/// Apple's keys: 503 when none can be had, and the last good set kept in SQLite across a restart.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct AppleKeysOutageTests {
    @Test func noKeysAtAllIs503AndWritesNothing() async throws {
        let app = try await TestApp.start()
        let token = try app.identityToken()
        await app.apple.shutdown()
        let response = try await app.sendJSON(.POST, "/api/users/siwa", ["token": token])
        #expect(response.status == .serviceUnavailable)
        #expect(try response.json()["error"] as? Bool == true)
        #expect(try await app.count("users") == 0)
        await app.stop()
    }

    @Test func lastGoodKeysSurviveARestartDuringAnOutage() async throws {
        let first = try await TestApp.start()
        let signedIn = try await first.sendJSON(.POST, "/api/users/siwa", ["token": try first.identityToken()])
        #expect(signedIn.status == .ok)
        let token = try first.identityToken(subject: "001.after.restart")
        await first.stop(keepFiles: true)

        let restarted = try await TestApp.start(directory: first.directory) { configuration in
            configuration.appleBaseURL = "http://127.0.0.1:9"
        }
        let response = try await restarted.sendJSON(.POST, "/api/users/siwa", ["token": token])
        #expect(response.status == .ok)
        await restarted.stop()
    }
}
