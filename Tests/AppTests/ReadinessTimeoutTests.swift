import Foundation
import IOCore
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
}
