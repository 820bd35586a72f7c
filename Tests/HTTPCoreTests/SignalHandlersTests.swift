import Dispatch
import Glibc
import Testing
@testable import HTTPCore

@Suite(.serialized)
struct SignalHandlersTests {
    /// A signal sent the moment `install` returns reaches the handler, every time. With the signal set to
    /// SIG_IGN before the source was registered (the previous code), the first one could be dropped, and once
    /// a second source was installed for the same signal every one was: Dispatch puts its own handler in place
    /// only once per signal and process.
    @Test func aSignalSentRightAfterInstallIsHandled() {
        for round in 0..<20 {
            let received = DispatchSemaphore(value: 0)
            let sources = SignalHandlers.install([SIGUSR1]) { number in
                if number == SIGUSR1 { received.signal() }
            }
            kill(getpid(), SIGUSR1)
            let handled = received.wait(timeout: .now() + .seconds(5)) == .success
            #expect(handled, "round \(round)")
            for source in sources { source.cancel() }
            if !handled { return }
        }
    }

    @Test func namesTheShutdownSignals() {
        #expect(SignalHandlers.name(of: SIGINT) == "SIGINT")
        #expect(SignalHandlers.name(of: SIGTERM) == "SIGTERM")
        #expect(SignalHandlers.name(of: SIGUSR2) == "signal \(SIGUSR2)")
    }
}
