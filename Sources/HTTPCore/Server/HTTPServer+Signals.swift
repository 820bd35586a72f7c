import Dispatch
import Glibc
import Logging

extension HTTPServer {
    /// Shuts the server down gracefully on SIGINT or SIGTERM (`siwa serve`): `run()` then returns and the
    /// process can exit 0. Signals sent once this returns are handled (see `SignalHandlers.install`). Keep the
    /// returned sources alive for as long as the handling should last.
    @discardableResult
    package func installSignalHandlers(_ signals: [Int32] = [SIGINT, SIGTERM]) -> [any DispatchSourceSignal] {
        SignalHandlers.install(signals) { [self] number in
            logger.notice("received \(SignalHandlers.name(of: number)), shutting down")
            Task { await self.shutdown() }
        }
    }
}

/// Runs a graceful shutdown on SIGINT or SIGTERM, for processes that serve more than one server (`siwa dev`).
package enum ShutdownSignals {
    /// Installs the handlers and returns once they work; keep the returned sources alive while they should.
    /// A second signal while shutting down is ignored: in-flight requests still finish.
    /// - Parameter logger: where the signal is logged as it arrives (a server's; the shutdown's own lines come
    ///   only at its end), or nil for a command that reports it itself.
    package static func install(logger: Logger? = nil,
                                _ shutdown: @escaping @Sendable () async -> Void) -> [any DispatchSourceSignal] {
        SignalHandlers.install([SIGINT, SIGTERM]) { number in
            logger?.notice("received \(SignalHandlers.name(of: number)), shutting down")
            Task { await shutdown() }
        }
    }
}
