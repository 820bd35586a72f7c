import CryptoCore
import Synchronization

/// The server's TLS context, replaced whole when its files are read again (`HTTPServer.reloadTLS()`). A connection
/// takes the context current when it is accepted and keeps it: OpenSSL holds a reference to the context from each
/// `SSL`, so one replaced while connections still use it is freed after the last of them.
final class TLSContextSlot: Sendable {
    private let context: Mutex<TLSServerContext>

    init(_ context: TLSServerContext) {
        self.context = Mutex(context)
    }

    /// The context new connections start with.
    var current: TLSServerContext { context.withLock { $0 } }

    func replace(with new: TLSServerContext) {
        context.withLock { $0 = new }
    }
}
