import Foundation
import Storage
import Synchronization
import TestSupport
import Testing
@testable import App

/// Two instances signing users in under load on a libpq multi-host URL with `target_session_attrs=read-write`, over
/// a primary and its synchronous standby; the primary is stopped hard (`pg_ctl stop -m immediate`) and the standby
/// promoted. Each instance finds the new primary by itself; the gap answers 503 with `Retry-After`, never another
/// status; sign-ins succeed again within 10 s of the promotion; and every sign-in answered 200 is in the database.
@Suite(.postgres, .serialized, .timeLimit(.minutes(3)))
struct PostgresFailoverSignInTests {
    /// Sign-ins in flight at once, spread over the two instances.
    static let signers = 8

    /// What the signers saw.
    final class Ledger: Sendable {
        let signedIn = Mutex<[String]>([])
        let unavailable = Atomic<Int>(0)
        let unavailableWithoutRetryAfter = Atomic<Int>(0)
        let otherAnswers = Mutex<[String]>([])
        let stop = Atomic<Bool>(false)
        var count: Int { signedIn.withLock { $0.count } }
    }

    @Test func twoInstancesRideOutAPromotionAndLoseNoSignIn() async throws {
        let (primary, standby) = try await PostgresCluster.synchronousPair()
        defer {
            standby.stop()
            primary.stop()
        }
        let database = String(try await primary.newDatabase().split(separator: "/").last ?? "")
        try await primary.waitUntilReplayed(by: standby)
        let url = try PostgresURL("postgres://postgres@127.0.0.1:\(primary.port),127.0.0.1:\(standby.port)/\(database)"
                                  + "?target_session_attrs=read-write&connect_timeout=2")
        try await TestApp.instances(2, configure: { _, configuration in configuration.databaseURL = url }) { apps in
            let ledger = Ledger()
            let signers = (0..<Self.signers).map { signer in
                Task {
                    let app = apps[signer % apps.count]
                    var next = 0
                    while !ledger.stop.load(ordering: .relaxed) {
                        next += 1
                        let subject = "001.failover.\(signer).\(next)"
                        do {
                            let response = try await app.sendJSON(.POST, "/api/users/siwa", [
                                "token": try app.identityToken(subject: subject, email: "\(subject)@example.com"),
                            ])
                            switch response.status {
                            case .ok: ledger.signedIn.withLock { $0.append(subject) }
                            case .serviceUnavailable:
                                ledger.unavailable.add(1, ordering: .relaxed)
                                if response.headers["Retry-After"] == nil {
                                    ledger.unavailableWithoutRetryAfter.add(1, ordering: .relaxed)
                                }
                                try? await Task.sleep(for: .milliseconds(50))
                            default: ledger.otherAnswers.withLock { $0.append("\(response.status.code) \(response.text)") }
                            }
                        } catch {
                            ledger.otherAnswers.withLock { $0.append("\(error)") }
                        }
                    }
                }
            }
            while ledger.count < 60 { try await Task.sleep(for: .milliseconds(20)) }
            try await primary.killServer()
            let beforePromotion = ledger.count
            try await standby.promoteServer()
            let promoted = ContinuousClock.now
            while ledger.count <= beforePromotion + 40, ContinuousClock.now - promoted < .seconds(30) {
                try await Task.sleep(for: .milliseconds(20))
            }
            let recovered = ContinuousClock.now - promoted
            ledger.stop.store(true, ordering: .relaxed)
            for signer in signers { await signer.value }

            #expect(recovered < .seconds(10), "sign-ins went on \(recovered) after the promotion")
            #expect(ledger.otherAnswers.withLock { $0 }.isEmpty, "\(ledger.otherAnswers.withLock { $0.prefix(3) })")
            #expect(ledger.unavailableWithoutRetryAfter.load(ordering: .relaxed) == 0)
            let answered = Set(ledger.signedIn.withLock { $0 })
            let stored = Set(try await apps[0].server.services.database.read(
                SQL("SELECT siwa_identifier FROM users WHERE siwa_identifier LIKE '001.failover.%'")) { try $0[0] as String })
            #expect(answered.isSubset(of: stored), "lost: \(answered.subtracting(stored).sorted().prefix(5))")
            #expect(answered.count > beforePromotion)
            for app in apps { #expect(try await app.send(.GET, "/ready").status == .ok) }
        }
    }
}
