import Dispatch
import Foundation
import TestSupport
import Testing
@testable import HTTPCore

@Suite(.timeLimit(.minutes(1)))
struct TLSServerTests {
    /// Runs a command off the cooperative pool, feeding `input`, returning exit status and stdout.
    static func run(_ arguments: [String], input: String = "") async throws -> (Int32, String) {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue(label: "process").async {
                do {
                    let process = try ChildProcess("/usr/bin/env", arguments: arguments, input: .pipe, output: .pipe,
                                                   error: .null)
                    guard let stdin = process.input, let stdout = process.output else {
                        throw ChildProcess.Failure(description: "no pipes")
                    }
                    stdin.write(Data(input.utf8))
                    try stdin.close()
                    let output = stdout.readDataToEndOfFile()
                    process.waitUntilExit()
                    continuation.resume(returning: (process.terminationStatus, String(decoding: output, as: UTF8.self)))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// A fresh self-signed P-256 certificate for `localhost` in a temporary directory.
    static func makeCertificate() async throws -> TLSServerConfiguration {
        let certificate = try SelfSignedCertificate.make()
        return TLSServerConfiguration(certificatePath: certificate.certificatePath,
                                      privateKeyPath: certificate.privateKeyPath)
    }

    @Test(arguments: ["-tls1_2", "-tls1_3"])
    func servesOverTLS(_ version: String) async throws {
        let tls = try await Self.makeCertificate()
        try await withServer(tls: tls) { _, port in
            let request = "GET /secure HTTP/1.1\r\nHost: localhost\r\n\r\n"
                + "POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello"
            let (_, output) = try await Self.run(["openssl", "s_client", "-connect", "127.0.0.1:\(port)", "-quiet",
                                                  "-ign_eof", version], input: request)
            #expect(output.hasPrefix("HTTP/1.1 200 OK"))
            #expect(output.contains("\r\n\r\nsecure"))
            #expect(output.hasSuffix("POST /echo 5\nhello"))
        }
    }

    @Test func largeBodyOverTLS() async throws {
        let tls = try await Self.makeCertificate()
        try await withServer(tls: tls) { _, port in
            let (_, output) = try await Self.run(["openssl", "s_client", "-connect", "127.0.0.1:\(port)", "-quiet",
                                                  "-ign_eof"],
                                                 input: "GET /big HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
            #expect(output.contains("Content-Length: 4194304\r\n"))
            #expect(output.utf8.count > 4 * 1024 * 1024)
            #expect(output.hasSuffix("aaaa"))
        }
    }

    @Test func refusesTLS11() async throws {
        let tls = try await Self.makeCertificate()
        try await withServer(tls: tls) { _, port in
            let (_, output) = try await Self.run(["openssl", "s_client", "-connect", "127.0.0.1:\(port)", "-quiet",
                                                  "-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0"],
                                                 input: "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
            #expect(!output.contains("HTTP/1.1"))
        }
    }

    /// TLS 1.2 takes ECDHE with AEAD ciphers only: a client offering only CBC with SHA-1 gets no handshake, one
    /// offering ChaCha20-Poly1305 gets its answer.
    @Test(arguments: [("ECDHE-ECDSA-AES128-SHA", false), ("ECDHE-ECDSA-AES256-SHA384", false),
                      ("ECDHE-ECDSA-CHACHA20-POLY1305", true), ("ECDHE-ECDSA-AES256-GCM-SHA384", true)])
    func tls12TakesOnlyForwardSecretAEADCiphers(_ cipher: String, accepted: Bool) async throws {
        let tls = try await Self.makeCertificate()
        try await withServer(tls: tls) { _, port in
            let (_, output) = try await Self.run(["openssl", "s_client", "-connect", "127.0.0.1:\(port)", "-quiet",
                                                  "-tls1_2", "-cipher", cipher],
                                                 input: "GET /secure HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
            #expect(output.hasPrefix("HTTP/1.1 200 OK") == accepted, "\(output)")
        }
    }

    /// ALPN (RFC 7301 §3.2): `http/1.1` is chosen when the client lists it; a client listing only other protocols
    /// (h2 alone, or another service's protocol on the same certificate) gets no handshake.
    @Test(arguments: [("h2,http/1.1", true), ("http/1.1", true), ("h2", false), ("acme-tls/1", false)])
    func alpnSelectsHTTP11OrRefuses(_ offered: String, accepted: Bool) async throws {
        let tls = try await Self.makeCertificate()
        try await withServer(tls: tls) { _, port in
            let (_, output) = try await Self.run(["openssl", "s_client", "-connect", "127.0.0.1:\(port)", "-ign_eof",
                                                  "-alpn", offered],
                                                 input: "GET /secure HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
            #expect(output.contains("ALPN protocol: http/1.1") == accepted, "\(output.suffix(300))")
            #expect(output.contains("HTTP/1.1 200 OK") == accepted)
        }
    }

    @Test func aClientListingNoProtocolIsServedHTTP11() async throws {
        let tls = try await Self.makeCertificate()
        try await withServer(tls: tls) { _, port in
            let (_, output) = try await Self.run(["openssl", "s_client", "-connect", "127.0.0.1:\(port)", "-ign_eof"],
                                                 input: "GET /secure HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
            #expect(output.contains("No ALPN negotiated"))
            #expect(output.contains("HTTP/1.1 200 OK"))
        }
    }

    @Test func plainTextOnTLSPortIsDropped() async throws {
        let tls = try await Self.makeCertificate()
        try await withServer(tls: tls) { _, port in
            let client = try RawClient(port: port)
            try client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
            #expect(await client.isClosedByPeer())
        }
    }

    @Test func missingCertificateFailsStart() {
        let server = HTTPServer(configuration: .init(port: 0, tls: .init(certificatePath: "/nonexistent/c.pem",
                                                                         privateKeyPath: "/nonexistent/k.pem")),
                                responder: EchoResponder(), logger: .init(label: "test"))
        #expect(throws: (any Error).self) { try server.start() }
    }
}
