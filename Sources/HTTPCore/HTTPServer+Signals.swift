import Dispatch
import Glibc

extension HTTPServer {
    /// Shuts the server down gracefully on SIGINT or SIGTERM (`siwa serve`): `run()` then returns and the
    /// process can exit 0. Keep the returned sources alive for as long as the handling should last.
    @discardableResult
    public func installSignalHandlers(_ signals: [Int32] = [SIGINT, SIGTERM]) -> [any DispatchSourceSignal] {
        signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in
                let name = number == SIGINT ? "SIGINT" : number == SIGTERM ? "SIGTERM" : "signal \(number)"
                logger.notice("received \(name), shutting down")
                Task { await self.shutdown() }
            }
            source.resume()
            return source
        }
    }
}
