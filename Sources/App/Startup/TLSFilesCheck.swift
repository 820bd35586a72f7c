import CryptoCore
import Foundation
import HTTPCore
import Web

/// The files of `TLS_CERT_PATH`, `TLS_KEY_PATH`, `SSL_CERT_FILE` and `SIWA_EXTRA_CA_FILE`, loaded first thing at
/// start: a file that cannot be used stops the server naming its variable, before a database is opened or created
/// (a trust store or an extra CA that does not load would otherwise fail every call to Apple, every sign-in then a
/// 503, with a log line blaming Apple's certificate).
enum TLSFilesCheck {
    /// Days before a certificate's end from which the start warns.
    static let expiryWarningDays = 14

    /// A certificate past or near its end.
    struct Expiry: Equatable {
        /// Whether it has ended: every client refuses it.
        var expired: Bool
        /// What is wrong with it, and what to do.
        var detail: String
        /// What to log, naming the variable.
        var message: String { "TLS_CERT_PATH: " + detail }
    }

    /// - Returns: a warning when the certificate of `TLS_CERT_PATH` has expired or expires within
    ///   `expiryWarningDays` (found by an audit: an expired one started without a word).
    /// - Throws: `ConfigurationError` naming the variable whose file OpenSSL refused, with OpenSSL's reason.
    @discardableResult
    static func check(_ configuration: Configuration) throws -> Expiry? {
        // Only looked at here: parsing the system's bundle costs tens of milliseconds and some megabytes that the
        // client pays on its first HTTPS call anyway, where a file that does not parse is named too.
        if let file = configuration.trustStoreFile,
           !(FileManager.default.contents(atPath: file).map { String(decoding: $0, as: UTF8.self) }?
               .contains("-----BEGIN CERTIFICATE-----") ?? false) {
            throw ConfigurationError.malformed(name: "SSL_CERT_FILE", expected: "a readable PEM file of the CA "
                + "certificates to trust for outgoing HTTPS (\(file) is not one)")
        }
        if let file = configuration.extraCAFile {
            do {
                _ = try TLSClientContext(extraCAFile: file)
            } catch {
                throw ConfigurationError.malformed(name: "SIWA_EXTRA_CA_FILE", expected: "a readable PEM file of CA "
                    + "certificates (\(error))")
            }
        }
        guard let tls = configuration.tls else { return nil }
        let context: TLSServerContext
        do {
            context = try TLSServerContext(certificateChainPath: tls.certificatePath, privateKeyPath: tls.privateKeyPath)
        } catch let error as TLSServerContext.FileError {
            throw named(error)
        }
        return context.certificateSecondsLeft.flatMap(expiry(secondsLeft:))
    }

    /// The error of a TLS file OpenSSL refused, naming its variable.
    static func named(_ error: TLSServerContext.FileError) -> ConfigurationError {
        switch error.file {
        case .certificateChain:
            .malformed(name: "TLS_CERT_PATH", expected: "a readable PEM file of the certificate chain, leaf first (\(error))")
        case .privateKey:
            .malformed(name: "TLS_KEY_PATH", expected: "a readable PEM private key, without a passphrase, of the "
                + "certificate in TLS_CERT_PATH (\(error))")
        }
    }

    /// What to say of a certificate `secondsLeft` from its end (negative: past it); nil when it has
    /// `expiryWarningDays` or more.
    static func expiry(secondsLeft left: Int) -> Expiry? {
        guard left < expiryWarningDays * 86_400 else { return nil }
        let days = left / 86_400
        return left < 0
            ? Expiry(expired: true, detail: "the certificate has expired (\(-days) day(s) ago): clients refuse it; "
                + "renew it, then send the server SIGHUP or restart it")
            : Expiry(expired: false, detail: "the certificate expires in \(days) day(s): renew it, then send the "
                + "server SIGHUP or restart it")
    }
}
