import Dispatch
import Glibc

/// Runs a graceful shutdown on SIGINT or SIGTERM, for processes that serve more than one server (`siwa dev`).
enum ShutdownSignals {
    /// Installs the handlers; keep the returned sources alive while they should work. A second signal while
    /// shutting down is ignored: in-flight requests still finish.
    static func install(_ shutdown: @escaping @Sendable () async -> Void) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { Task { await shutdown() } }
            source.resume()
            return source
        }
    }
}
