import HTTPCore
import Synchronization
import Web

/// The counters the app owns for `GET /metrics`, and the late-bound HTTP server whose connections it reports.
///
/// The server is held weakly: it is made after the routes (which reach this object through `Services`), and
/// a strong reference would tie the server, the application and the services into a cycle.
final class AppMetrics: Sendable {
    /// Identity-token verifications by `VerificationResult.slot`.
    let verifications = AtomicCounters(count: VerificationResult.allCases.count)
    /// What the server's schedule of Apple's chores did.
    let chores = ChoreCounters()
    private let server = Mutex(WeakServer())

    private struct WeakServer {
        weak var server: HTTPServer?
    }

    /// Connects the server whose open and accepted connections the page reports.
    func attach(_ server: HTTPServer) {
        self.server.withLock { $0.server = server }
    }

    /// The attached server, if it is still alive.
    var httpServer: HTTPServer? { server.withLock { $0.server } }

    /// Counts one verification.
    func record(_ result: VerificationResult) {
        verifications.add(result.slot)
    }
}
