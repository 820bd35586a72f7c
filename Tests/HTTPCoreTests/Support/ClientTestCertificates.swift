import COpenSSL
import Foundation

/// Certificates made at test time with OpenSSL's C API (no `openssl` CLI needed): a self-signed test CA and
/// leaf certificates it signs, written as PEM files into a fresh temporary directory.
struct ClientTestCertificates: Sendable {
    let directory: String
    /// The test CA's certificate: what a client passes as `extraCAFile`.
    let caFile: String
    /// Leaf for `localhost` and `127.0.0.1`, valid now.
    let good: (chain: String, key: String)
    /// Leaf for `other.example` only.
    let wrongHost: (chain: String, key: String)
    /// Leaf for `localhost` whose validity ended yesterday.
    let expired: (chain: String, key: String)
    /// Leaf for `localhost` signed by a CA nobody trusts.
    let unknownCA: (chain: String, key: String)

    /// Made once per test process.
    static let shared: ClientTestCertificates = {
        do { return try ClientTestCertificates() } catch { fatalError("cannot make test certificates: \(error)") }
    }()

    private init() throws {
        directory = NSTemporaryDirectory() + "siwa-client-tls-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let day = 24 * 3600
        let ca = try ClientTestCertificate(commonName: "siwa test CA", subjectAltName: nil, isCA: true,
                                     validFrom: -day, validFor: 30 * day, issuer: nil)
        let rogue = try ClientTestCertificate(commonName: "rogue CA", subjectAltName: nil, isCA: true,
                                        validFrom: -day, validFor: 30 * day, issuer: nil)
        caFile = try ca.writeCertificate(to: directory + "/ca.pem")
        let localhost = "DNS:localhost,IP:127.0.0.1,IP:::1"
        good = try Self.leaf("good", localhost, from: -day, for: 30 * day, issuer: ca, in: directory)
        wrongHost = try Self.leaf("wrong-host", "DNS:other.example", from: -day, for: 30 * day, issuer: ca, in: directory)
        expired = try Self.leaf("expired", localhost, from: -10 * day, for: 9 * day, issuer: ca, in: directory)
        unknownCA = try Self.leaf("unknown-ca", localhost, from: -day, for: 30 * day, issuer: rogue, in: directory)
    }

    private static func leaf(_ name: String, _ altName: String, from: Int, for duration: Int,
                             issuer: ClientTestCertificate, in directory: String) throws -> (chain: String, key: String) {
        let leaf = try ClientTestCertificate(commonName: name, subjectAltName: altName, isCA: false,
                                       validFrom: from, validFor: duration, issuer: issuer)
        return (try leaf.writeCertificate(to: "\(directory)/\(name).pem"),
                try leaf.writeKey(to: "\(directory)/\(name)-key.pem"))
    }

    func serverContext(_ pair: (chain: String, key: String)) throws -> ScriptedTLSServerContext {
        try ScriptedTLSServerContext(certificateChainFile: pair.chain, keyFile: pair.key)
    }
}
