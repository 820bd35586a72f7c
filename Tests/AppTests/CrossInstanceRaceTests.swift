@testable import FakeApple
import Foundation
import HTTPCore
import Storage
import TestSupport
import Testing
@testable import App

/// Races across instances on one PostgreSQL database: the same first sign-in, the same web nonce and the same
/// notification `jti` arriving at several instances at the same moment each take effect once.
@Suite(.postgres, .serialized, .timeLimit(.minutes(2)))
struct CrossInstanceRaceTests {
    /// Sign-ins of one new Apple account sent to each instance at once.
    static let signInsPerInstance = 8
    /// Rounds of the nonce race, each with a fresh browser state and a new account.
    static let nonceRounds = 5

    @Test func theSameNewSubOnEveryInstanceAtOnceMakesOneUser() async throws {
        try await TestApp.instances(3) { apps in
            let token = try apps[0].identityToken(subject: "001.everywhere", email: "everywhere@example.com")
            let answers = try await withThrowingTaskGroup(of: (HTTPStatus, String?).self) { group in
                for app in apps {
                    for _ in 0..<Self.signInsPerInstance {
                        group.addTask {
                            let response = try await app.sendJSON(.POST, "/api/users/siwa", ["token": token])
                            return (response.status, (try? response.json()["user"] as? [String: Any])?["id"] as? String)
                        }
                    }
                }
                return try await group.reduce(into: [(HTTPStatus, String?)]()) { $0.append($1) }
            }
            let total = apps.count * Self.signInsPerInstance
            #expect(answers.count == total)
            #expect(answers.allSatisfy { $0.0 == .ok }, "\(answers.map(\.0))")
            #expect(Set(answers.compactMap(\.1)).count == 1, "every sign-in got the same user")
            #expect(try await apps[0].count("users") == 1)
            #expect(try await apps[1].count("tokens") == total)
        }
    }

    /// A returning user's sign-in while their deletion commits (another session deletes them and holds its
    /// transaction open until the sign-in waits on it): the sign-in's write finds the user gone and is written again,
    /// answering as a sign-in after the deletion does. Found by an audit: a 500 from the foreign key on `tokens`.
    @Test func aSignInWhileTheUserIsDeletedAnswersAsAfterTheDeletion() async throws {
        try await TestApp.instances(1) { apps in
            let app = apps[0]
            let subject = "001.deleted.meanwhile"
            let first = try await app.sendJSON(.POST, "/api/users/siwa", [
                "token": try app.identityToken(subject: subject, email: "deleted@example.com"),
            ])
            #expect(first.status == .ok)
            let url = try #require(app.server.configuration.databaseURL?.uri)
            let deleter = try PsqlSession(url: url)
            defer { deleter.close() }
            deleter.send("BEGIN; DELETE FROM users WHERE siwa_identifier = '\(subject)';")
            try await Self.waitFor(app, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                                   + "AND state = 'idle in transaction' AND query LIKE 'DELETE FROM users%'")
            // Without an email, as a returning user's token may be: after the deletion it cannot make a new user.
            async let signIn = app.sendJSON(.POST, "/api/users/siwa", ["token": try app.identityToken(subject: subject, email: nil)])
            try await Self.waitFor(app, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                                   + "AND wait_event_type = 'Lock'")
            deleter.send("COMMIT;")
            let answer = try await signIn
            #expect(answer.status == .badRequest, "\(answer.text)")
            #expect(try answer.json()["reason"] as? String == SignInFailure.missingEmail.reason)
            #expect(try await app.count("users") == 0)
        }
    }

    /// Polls `countQuery` on `app`'s database until it counts at least one row, for at most ten seconds. The cluster
    /// is shared by the suite's other tests: a query of `pg_stat_activity` names this test's database.
    private static func waitFor(_ app: TestApp, _ countQuery: String) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let count = try await app.server.services.database.readOne(SQL(countQuery)) { try $0[0] as Int } ?? 0
            if count > 0 { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("nothing matched \(countQuery) within ten seconds")
    }

    /// The same hand-off (token and `SIWA_STATE` cookie) posted to two instances at once: one 303 with a session,
    /// one 401, and one used-nonce row.
    @Test func oneWebHandlePostedToTwoInstancesAtOnceSignsInOnce() async throws {
        try await TestApp.instances(2) { apps in
            let (a, b) = (apps[0], apps[1])
            for round in 0..<Self.nonceRounds {
                let state = try TestApp.newState()
                let token = try a.webToken(state: state, subject: "001.handle.race.\(round)")
                async let onA = a.handle([("token", token)], state: state)
                async let onB = b.handle([("token", token)], state: state)
                let answers = [try await onA, try await onB]
                let statuses = answers.map(\.status)
                #expect(statuses.filter { $0 == .seeOther }.count == 1, "round \(round): \(statuses)")
                #expect(statuses.filter { $0 == .unauthorized }.count == 1, "round \(round): \(statuses)")
                #expect(answers.compactMap { $0.cookieValue("session") }.count == 1, "round \(round)")
            }
            #expect(try await a.count("used_nonces") == Self.nonceRounds)
            #expect(try await b.count("sessions") == Self.nonceRounds)
            #expect(try await a.count("users") == Self.nonceRounds)
        }
    }

    /// One Apple notification (one `jti`) delivered to every instance at once is applied by one of them; the others
    /// answer 200 `duplicate`. The account it deletes is gone everywhere, with the bearer token issued before.
    @Test func oneNotificationDeliveredToEveryInstanceAtOnceIsAppliedOnce() async throws {
        try await TestApp.instances(3) { apps in
            let signIn = try await apps[0].sendJSON(.POST, "/api/users/siwa", [
                "token": try apps[0].identityToken(subject: "001.notified", email: "notified@example.com"),
            ])
            let bearer = try #require(try signIn.json()["value"] as? String)
            let payload = try FakeAppleNotifier.payload(event: "account-delete", subject: "001.notified",
                                                        audience: TestApp.iosClientID, email: nil, keys: apps[0].keys)
            let answers = try await withThrowingTaskGroup(of: (HTTPStatus, String?).self) { group in
                for app in apps {
                    group.addTask {
                        let response = try await app.sendJSON(.POST, "/api/apple/notifications", ["payload": payload])
                        return (response.status, try? response.json()["status"] as? String)
                    }
                }
                return try await group.reduce(into: [(HTTPStatus, String?)]()) { $0.append($1) }
            }
            #expect(answers.allSatisfy { $0.0 == .ok }, "\(answers.map(\.0))")
            #expect(answers.compactMap(\.1).sorted() == ["applied", "duplicate", "duplicate"])
            #expect(try await apps[1].count("apple_notifications") == 1)
            #expect(try await apps[2].count("users") == 0)
            #expect(try await apps[2].sendJSON(.GET, "/api/users/me", [:], bearer: bearer).status == .unauthorized)
        }
    }
}
