import Dispatch
import Glibc

/// Runs a graceful shutdown on SIGINT or SIGTERM, for processes that serve more than one server (`siwa dev`).
package enum ShutdownSignals {
    /// Installs the handlers and returns once they work; keep the returned sources alive while they should.
    /// A second signal while shutting down is ignored: in-flight requests still finish.
    package static func install(_ shutdown: @escaping @Sendable () async -> Void) -> [any DispatchSourceSignal] {
        SignalHandlers.install([SIGINT, SIGTERM]) { _ in Task { await shutdown() } }
    }
}
