/// PEM files for TLS termination: the certificate chain (leaf first) and its private key.
package struct TLSServerConfiguration: Sendable, Equatable {
    package var certificatePath: String
    package var privateKeyPath: String

    package init(certificatePath: String, privateKeyPath: String) {
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
    }
}
