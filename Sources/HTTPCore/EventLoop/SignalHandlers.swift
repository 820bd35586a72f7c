import Dispatch
import Glibc

/// Runs code on process signals (SIGINT, SIGTERM) through Dispatch signal sources.
package enum SignalHandlers {
    /// How long `install` waits for Dispatch to register a source before going on without it.
    package static let registrationTimeout = DispatchTimeInterval.seconds(2)

    /// Starts running `handler` on a global queue for each of `signals`, and returns once Dispatch has
    /// registered every source, so a signal sent after `install` returns is never lost. Keep the returned
    /// sources alive for as long as the handling should last.
    ///
    /// The signals are not set to `SIG_IGN` first (the macOS idiom): on Linux Dispatch installs its own
    /// handler when it registers a source, on a thread of its own, and a signal ignored before that moment is
    /// dropped for good. Until registration a signal keeps its default action, so a SIGTERM that early still
    /// ends the process.
    package static func install(_ signals: [Int32],
                               handler: @escaping @Sendable (Int32) -> Void) -> [any DispatchSourceSignal] {
        signals.map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            let registered = DispatchSemaphore(value: 0)
            source.setRegistrationHandler { registered.signal() }
            source.setEventHandler { handler(number) }
            source.resume()
            _ = registered.wait(timeout: .now() + registrationTimeout)
            return source
        }
    }

    /// The conventional name of a signal for log lines.
    package static func name(of number: Int32) -> String {
        switch number {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        case SIGQUIT: "SIGQUIT"
        default: "signal \(number)"
        }
    }
}
