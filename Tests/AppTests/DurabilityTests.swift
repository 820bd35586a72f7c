import Foundation
import Glibc
import HTTPCore
import Synchronization
import TestSupport
import Testing
@testable import App

/// SIGKILL in the middle of a burst of sign-ins on the real `siwa serve`: after a restart on the same database,
/// every bearer whose 200 was received still works. On SQLite (DATABASE_SYNCHRONOUS left at its default, `normal`)
/// and on PostgreSQL (a throwaway cluster; the server, not the database, is killed).
@Suite(.serialized, .timeLimit(.minutes(3)))
struct DurabilityTests {
    /// Distinct new users in the burst.
    static let users = 600
    /// Sign-ins in flight at once.
    static let concurrency = 24
    /// 200s to receive before the kill.
    static let answeredBeforeKill = 80

    /// What the burst received (bearer → user id), and the next token to send.
    final class Answers: Sendable {
        private let answers = Mutex<[(bearer: String, userID: String)]>([])
        private let issued = Mutex(0)
        func nextIndex() -> Int { issued.withLock { value in defer { value += 1 }; return value } }
        var started: Int { issued.withLock { $0 } }
        var all: [(bearer: String, userID: String)] { answers.withLock { $0 } }
        var count: Int { answers.withLock { $0.count } }
        func append(bearer: String, userID: String) { answers.withLock { $0.append((bearer, userID)) } }
    }

    @Test func everyAnsweredSignInSurvivesSIGKILLMidBurst() async throws {
        try await SpawnedApp.with { app in try await killMidBurstAndRestart(app) }
    }

    @Test(.postgres) func everyAnsweredSignInSurvivesSIGKILLMidBurstOnPostgreSQL() async throws {
        let url = try await PostgresCluster.sharedCluster().newDatabase()
        try await SpawnedApp.with { app in try await killMidBurstAndRestart(app, ["DATABASE_URL": url]) }
    }

    private func killMidBurstAndRestart(_ app: SpawnedApp, _ extra: [String: String] = [:]) async throws {
        let server = try await app.launch(extra)
        let tokens = try (0..<Self.users).map { try app.identityToken(subject: "001.durable.\($0)") }
        let answers = Answers()
        let (client, url, pid) = (app.client, app.baseURL + "/api/users/siwa", server.pid)

        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<Self.concurrency {
                group.addTask {
                    while true {
                        let index = answers.nextIndex()
                        guard index < tokens.count else { return }
                        let request = HTTPClientRequest(
                            method: .POST, url: url, headers: ["Content-Type": "application/json"],
                            body: Array("{\"token\":\"\(tokens[index])\"}".utf8)
                        )
                        guard let response = try? await client.send(request), response.status == .ok,
                              let body = try? response.json(), let bearer = body["value"] as? String,
                              let userID = (body["user"] as? [String: Any])?["id"] as? String
                        else { continue }
                        answers.append(bearer: bearer, userID: userID)
                    }
                }
            }
            group.addTask {
                while answers.count < Self.answeredBeforeKill, answers.started < tokens.count {
                    try? await Task.sleep(for: .milliseconds(1))
                }
                kill(pid, SIGKILL)
            }
        }
        server.waitForExit()
        #expect(server.process.wasSignaled && server.process.terminationStatus == SIGKILL)
        let received = answers.all
        #expect(received.count >= Self.answeredBeforeKill)
        #expect(received.count < Self.users, "the kill must land mid-burst")

        try await app.launch(extra)
        var lost: [String] = []
        for (bearer, userID) in received {
            let me = try await app.me(bearer: bearer)
            if me.status != .ok || (try? me.json()["id"] as? String) != userID { lost.append(userID) }
        }
        #expect(lost.isEmpty, "\(lost.count) of \(received.count) answered sign-ins were lost: \(lost.prefix(5))")
    }
}
