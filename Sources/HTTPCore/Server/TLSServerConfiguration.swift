/// PEM files for TLS termination: the certificate chain (leaf first) and its private key.
public struct TLSServerConfiguration: Sendable, Equatable {
    public var certificatePath: String
    public var privateKeyPath: String

    public init(certificatePath: String, privateKeyPath: String) {
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
    }
}
