import CryptoCore
import HTTPCore
import Web

/// The files of `TLS_CERT_PATH` and `TLS_KEY_PATH`, loaded first thing at start: a file that cannot be used stops
/// the server naming its variable, before a database is opened or created.
enum TLSFilesCheck {
    /// - Throws: `ConfigurationError` naming the variable whose file OpenSSL refused, with OpenSSL's reason.
    static func check(_ tls: TLSServerConfiguration?) throws {
        guard let tls else { return }
        do {
            _ = try TLSServerContext(certificateChainPath: tls.certificatePath, privateKeyPath: tls.privateKeyPath)
        } catch let error as TLSServerContext.FileError {
            switch error.file {
            case .certificateChain:
                throw ConfigurationError.malformed(
                    name: "TLS_CERT_PATH", expected: "a readable PEM file of the certificate chain, leaf first (\(error))")
            case .privateKey:
                throw ConfigurationError.malformed(
                    name: "TLS_KEY_PATH", expected: "a readable PEM private key, without a passphrase, of the certificate "
                        + "in TLS_CERT_PATH (\(error))")
            }
        }
    }
}
