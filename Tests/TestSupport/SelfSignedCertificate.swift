import Foundation

/// A fresh self-signed P-256 certificate, by default for `localhost` and `127.0.0.1`, made with the `openssl` command
/// in a temporary directory; it is its own CA, so clients trust it through an extra CA file.
package struct SelfSignedCertificate: Sendable {
    package let certificatePath: String
    package let privateKeyPath: String

    /// - Parameters:
    ///   - subjectAltNames: the names it is valid for, in `openssl`'s `subjectAltName` syntax.
    ///   - days: how long it is valid from now.
    package static func make(subjectAltNames: String = "DNS:localhost,IP:127.0.0.1", days: Int = 30) throws
        -> SelfSignedCertificate
    {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificate = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        let status = try ChildProcess.run("/usr/bin/env", arguments: [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key, "-out", certificate, "-days", String(days), "-subj", "/CN=localhost",
            "-addext", "subjectAltName=" + subjectAltNames,
        ])
        guard status == 0 else { throw CocoaError(.fileWriteUnknown) }
        return SelfSignedCertificate(certificatePath: certificate, privateKeyPath: key)
    }

    /// Writes its certificate and key over the files a server reads (each replaced whole), as a renewal does.
    package func install(certificateAt certificateDestination: String, keyAt keyDestination: String) throws {
        for (from, to) in [(certificatePath, certificateDestination), (privateKeyPath, keyDestination)] {
            try Data(contentsOf: URL(fileURLWithPath: from)).write(to: URL(fileURLWithPath: to), options: .atomic)
        }
    }
}
