import CryptoCore
import Dispatch
import Glibc
import HTTPCore
import Logging

/// `siwa serve` with built-in TLS reads `TLS_CERT_PATH` and `TLS_KEY_PATH` again on SIGHUP, as nginx does, so a
/// renewed certificate (certbot's deploy hook) is served without a restart: connections accepted from then on get
/// it, open ones keep theirs. Files that do not load leave the server on the certificate it had, with an error
/// naming the variable. Without TLS, SIGHUP keeps its default action.
enum TLSFilesReload {
    /// Installs the handler when `server` terminates TLS; keep the returned sources alive while it should last.
    static func install(server: HTTPServer, logger: Logger) -> [any DispatchSourceSignal] {
        guard server.configuration.tls != nil else { return [] }
        return SignalHandlers.install([SIGHUP]) { _ in reload(server, logger: logger) }
    }

    /// Loads the files into `server` and says what it serves now. Runs on a Dispatch queue: it reads files.
    static func reload(_ server: HTTPServer, logger: Logger) {
        do {
            guard let context = try server.reloadTLS() else { return }
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
