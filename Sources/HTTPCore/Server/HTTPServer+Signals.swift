import Dispatch
import Glibc

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
