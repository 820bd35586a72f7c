import Foundation
import IOCore
import TestSupport
import Testing
@testable import App

/// `/ready` answers within `ReadinessController.databaseTimeout` whatever the database does. Found by an audit: a
/// frozen PostgreSQL primary held `/ready` for the pool's 30 s statement timeout, longer than any balancer waits.
struct ReadinessTimeoutTests {
    @Test func aCheckThatNeverAnswersIsNotReady() async {
        let started = ContinuousClock.now
        let ready = await EventLoop.answer(within: .milliseconds(200)) {
            try? await Task.sleep(for: .seconds(60))
            return true
        }
        #expect(ready == nil)
        #expect(ContinuousClock.now - started < .seconds(30), "answered at the timeout, not the check's end")
    }

    @Test func aCheckThatAnswersInTimeIsItsAnswer() async {
        #expect(await EventLoop.answer(within: .seconds(30)) { true } == true)
        #expect(await EventLoop.answer(within: .seconds(30)) { false } == false)
    }

    /// A check that answered true while another found a lasting problem (PgBouncer lost a prepared statement) is
    /// 503 and logs nothing: found by CI, where six `/ready` at once logged "answers again" after "503 from now on".
    @Test func aTrueAnswerAfterALastingProblemIsNotReadyAndLogsNothing() {
        let log = LogCapture()
        let readiness = Readiness()
        let problem = "PostgreSQL lost a prepared statement"
        #expect(readiness.note(databaseAnswer: false, lastingProblem: { problem }, logger: log.logger()) == false)
        #expect(readiness.note(databaseAnswer: true, lastingProblem: { problem }, logger: log.logger()) == false)
        #expect(log.all.count == 1 && log.contains("/ready: 503 from now on", problem), "\(log.text)")
        #expect(readiness.note(databaseAnswer: true, logger: log.logger()) == true)
        #expect(log.contains("/ready: the database answers again"))
    }
}
