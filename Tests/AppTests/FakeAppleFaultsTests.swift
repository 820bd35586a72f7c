import Foundation
import HTTPCore
import TestSupport
import Testing
@testable import App

/// `/dev/faults`: the stand-in plays Apple slow, throttling or failing on demand, so an operator can rehearse it
/// with curl. Found by a black-box review: the knobs were there for the project's own tests only, and reviewers had
/// to put proxies of their own in front of the stand-in.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct FakeAppleFaultsTests {
    private func setFaults(_ app: TestApp, json: [String: Any]) async throws -> HTTPClientResponse {
        try await app.client.send(HTTPClientRequest(
            method: .POST, url: app.apple.baseURL + "/dev/faults", headers: ["Content-Type": "application/json"],
            body: Array(try JSONSerialization.data(withJSONObject: json))))
    }

    private func faults(_ app: TestApp) async throws -> [String: Any] {
        try await app.client.send(HTTPClientRequest(url: app.apple.baseURL + "/dev/faults")).json()
    }

    private func signInWithCode(_ app: TestApp, subject: String) async throws -> HTTPClientResponse {
        let issued = try await app.apple.issueAuthorizationCode(clientID: TestApp.iosClientID, subject: subject,
                                                                email: "\(subject)@example.com")
        return try await app.sendJSON(.POST, "/api/users/siwa",
                                      ["token": issued.idToken, "authorizationCode": issued.code])
    }

    @Test func aThrottlingAppleIsPlayedAndEnded() async throws {
        try await TestApp.with { app in
            let set = try await setFaults(app, json: ["status": 429, "retryAfter": 7])
            #expect(set.status == .ok)
            #expect(try set.json()["status"] as? Int == 429 && set.json()["retryAfter"] as? Int == 7)
            let refused = try await signInWithCode(app, subject: "001.faults.throttled")
            #expect(refused.status == .serviceUnavailable)
            #expect(refused.headers["Retry-After"] == "7", "Apple's own Retry-After is passed on")
            #expect(try await app.count("users") == 0)

            // Form-encoded too, as curl -d sends it: status 0 ends the failure.
            let ended = try await app.client.send(HTTPClientRequest(
                method: .POST, url: app.apple.baseURL + "/dev/faults",
                headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array("status=0".utf8)))
            #expect(ended.status == .ok)
            #expect(try await faults(app)["status"] == nil)
            #expect(try await signInWithCode(app, subject: "001.faults.throttled").status == .ok)
        }
    }

    @Test func anOutageAndALatencyApplyToTokenAndRevokeButNotToTheKeys() async throws {
        try await TestApp.with { app in
            #expect(try await setFaults(app, json: ["status": 503, "latency": 0.3]).status == .ok)
            #expect(try await faults(app)["latency"] as? Double == 0.3)
            let started = ContinuousClock.now
            let token = try await app.client.send(HTTPClientRequest(
                method: .POST, url: app.apple.baseURL + "/auth/token",
                headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array("grant_type=x".utf8)))
            #expect(token.status.code == 503)
            #expect(ContinuousClock.now - started >= .milliseconds(300), "the latency comes first")
            let revoke = try await app.client.send(HTTPClientRequest(
                method: .POST, url: app.apple.baseURL + "/auth/revoke",
                headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array("token=x".utf8)))
            #expect(revoke.status.code == 503)
            let keys = try await app.client.send(HTTPClientRequest(url: app.apple.baseURL + "/auth/keys"))
            #expect(keys.status == .ok)
            #expect(try await setFaults(app, json: ["status": 200, "latency": 0]).status == .ok)
            let after = try await faults(app)
            #expect(after["status"] == nil && after["latency"] as? Double == 0)
        }
    }

    /// Each limit at its boundary: what is refused is 400 and changes nothing.
    @Test func valuesOutOfRangeAreRefusedAndChangeNothing() async throws {
        try await TestApp.with { app in
            #expect(try await setFaults(app, json: ["latency": 300, "status": 599, "retryAfter": 86_400]).status == .ok)
            for refused: [String: Any] in [["latency": 300.5], ["latency": -1], ["status": 428], ["status": 600],
                                           ["status": 404], ["retryAfter": 86_401], ["retryAfter": -1]] {
                let answer = try await setFaults(app, json: refused)
                #expect(answer.status == .badRequest, "\(refused)")
            }
            let kept = try await faults(app)
            #expect(kept["latency"] as? Double == 300 && kept["status"] as? Int == 599
                    && kept["retryAfter"] as? Int == 86_400)
            #expect(try await setFaults(app, json: ["status": 0, "latency": 0]).status == .ok)
            // A retryAfter with no failing status would be dropped unsaid: refused.
            #expect(try await setFaults(app, json: ["retryAfter": 5]).status == .badRequest)
            #expect(try await setFaults(app, json: ["status": 0, "retryAfter": 5]).status == .badRequest)
            #expect(try await setFaults(app, json: ["status": 503]).status == .ok)
            #expect(try await setFaults(app, json: ["retryAfter": 5]).status == .ok, "it joins the status set")
            #expect(try await faults(app)["retryAfter"] as? Int == 5)
            #expect(try await setFaults(app, json: ["status": 0]).status == .ok)
        }
    }
}
