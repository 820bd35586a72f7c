import CryptoCore
import Dispatch
import Glibc
import HTTPCore
import Logging
import Synchronization

/// `siwa serve` with built-in TLS reads `TLS_CERT_PATH` and `TLS_KEY_PATH` again on SIGHUP, as nginx does, so a
/// renewed certificate (certbot's deploy hook) is served without a restart: connections accepted from then on get
/// it, open ones keep theirs. Files that do not load leave the server on the certificate it had, with an error
/// naming the variable. Without TLS, SIGHUP keeps its default action.
final class TLSFilesReload: Sendable {
    private let server = Mutex<HTTPServer?>(nil)
    private let logger: Logger

    private init(logger: Logger) {
        self.logger = logger
    }

    /// Starts handling SIGHUP when `configuration` has TLS, from the start of `siwa serve` on: a signal before the
    /// server listens (while it waits for its database) is answered with a line, not the default action that ends
    /// the process. Keep the returned sources alive while the handling should last.
    static func install(_ configuration: Configuration, logger: Logger) -> (TLSFilesReload, [any DispatchSourceSignal]) {
        let reload = TLSFilesReload(logger: logger)
        guard configuration.tls != nil else { return (reload, []) }
        return (reload, SignalHandlers.install([SIGHUP]) { _ in reload.reload() })
    }

    /// The server SIGHUP reloads from now on; set it before the server starts, so that a signal while it starts
    /// is not lost between the files it loads and the handler.
    func serve(_ server: HTTPServer) {
        self.server.withLock { $0 = server }
    }

    /// Loads the files into the server and says what it serves now. Runs on a Dispatch queue: it reads files.
    private func reload() {
        do {
            guard let context = try server.withLock({ $0 })?.reloadTLS() else {
                logger.notice("SIGHUP while the server does not listen: it reads TLS_CERT_PATH and TLS_KEY_PATH as it starts")
                return
            }
            let left = context.certificateSecondsLeft
            logger.notice("SIGHUP: TLS_CERT_PATH and TLS_KEY_PATH read again; new connections get this certificate",
                          metadata: left.map { ["daysLeft": "\($0 / 86_400)"] } ?? [:])
            if let expiry = left.flatMap(TLSFilesCheck.expiry(secondsLeft:)) { logger.warning("\(expiry.message)") }
        } catch let error as TLSServerContext.FileError {
            logger.error("SIGHUP: TLS files not reloaded, still serving the previous certificate: \(TLSFilesCheck.named(error))")
        } catch {
            logger.error("SIGHUP: TLS files not reloaded, still serving the previous certificate: \(error)")
        }
    }
}
