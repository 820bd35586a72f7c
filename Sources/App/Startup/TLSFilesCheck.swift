import CryptoCore
import HTTPCore
import Web

/// The files of `TLS_CERT_PATH`, `TLS_KEY_PATH` and `SIWA_EXTRA_CA_FILE`, loaded first thing at start: a file
/// that cannot be used stops the server naming its variable, before a database is opened or created (an extra CA
/// that does not load would otherwise fail every call to Apple, every sign-in then a 503).
enum TLSFilesCheck {
    /// - Throws: `ConfigurationError` naming the variable whose file OpenSSL refused, with OpenSSL's reason.
    static func check(_ configuration: Configuration) throws {
        if let file = configuration.extraCAFile {
            do {
                _ = try TLSClientContext(extraCAFile: file)
            } catch {
                throw ConfigurationError.malformed(name: "SIWA_EXTRA_CA_FILE", expected: "a readable PEM file of CA "
                    + "certificates (\(error))")
            }
        }
        guard let tls = configuration.tls else { return }
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
