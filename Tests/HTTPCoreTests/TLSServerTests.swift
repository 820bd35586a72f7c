import CryptoCore
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
                    // A command that ended early (a reset connection) closes its end: the write then fails.
                    try? stdin.write(contentsOf: Data(input.utf8))
                    try? stdin.close()
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

    /// A refusal sent while the client still sends its body reaches the client over TLS too: close_notify, then the
    /// socket half-closed and what the client sends read and dropped for a while, as over plain HTTP (RFC 9112
    /// §9.6). Closing at once with the body unread reset the connection, and the client lost the 413.
    @Test func aRefusalReachesAClientStillSendingItsBody() async throws {
        let tls = try await Self.makeCertificate()
        try await withServer(limits: HTTPLimits(maxBodySize: 1024), tls: tls) { _, port in
            let body = String(repeating: "a", count: 3 * 1_048_576)
            let request = "POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
            for _ in 0..<3 {
                let (_, output) = try await Self.run(["openssl", "s_client", "-connect", "127.0.0.1:\(port)", "-quiet",
                                                      "-ign_eof"], input: request)
                #expect(output.hasPrefix("HTTP/1.1 413"), "\(output.prefix(200))")
            }
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

    /// A client listing only `http/1.0` (`curl --http1.0`) is served HTTP/1.0. Found by a review: it was refused
    /// with no_application_protocol, though the server speaks HTTP/1.0.
    @Test func aClientListingHTTP10IsServed() async throws {
        let tls = try await Self.makeCertificate()
        try await withServer(tls: tls) { _, port in
            let (_, output) = try await Self.run(["openssl", "s_client", "-connect", "127.0.0.1:\(port)", "-ign_eof",
                                                  "-alpn", "http/1.0"], input: "GET /secure HTTP/1.0\r\nHost: a\r\n\r\n")
            #expect(output.contains("ALPN protocol: http/1.0"), "\(output.suffix(300))")
            #expect(output.contains("HTTP/1.1 200 OK"), "\(output.suffix(300))")
        }
    }

    /// A connection that has sent nothing, with or without TLS, has no request under way: a shutdown closes it after
    /// the drain's idle time. Found by a review: one that had not finished its TLS handshake held the shutdown until
    /// the handshake's own deadline (10 s).
    @Test(arguments: [false, true])
    func aConnectionThatSentNothingIsClosedAtTheDrainIdleTimeout(_ withTLS: Bool) async throws {
        let tls = withTLS ? try await Self.makeCertificate() : nil
        try await withServer(limits: HTTPLimits(headerTimeout: .seconds(600), idleTimeout: .seconds(600)), tls: tls,
                             shutdownGracePeriod: .seconds(120), drainIdleTimeout: .milliseconds(100)) { server, port in
            let client = try RawClient(port: port)
            while server.openConnections == 0 { try await Task.sleep(for: .milliseconds(10)) }
            await server.shutdown()
            #expect(await client.isClosedByPeer(), "tls: \(withTLS)")
        }
    }

    /// At the connection limit a TLS handshake under way is not closed for a waiting connection: its request is on
    /// its way, so it is not idle. Found by a review: at the limit, 3-6 % of new TLS clients were cut mid-handshake,
    /// before connections idle for longer. (One that never finishes is cut at the header timeout, 10 minutes here so
    /// that no machine's load can make the check race with it; the test's client closes it instead.)
    @Test func aTLSHandshakeIsNotClosedForAWaitingConnection() async throws {
        let tls = try await Self.makeCertificate()
        let limits = HTTPLimits(headerTimeout: .seconds(600), maxConnections: 1)
        try await withServer(limits: limits, tls: tls) { server, port in
            var handshaking: RawClient? = try RawClient(port: port)
            while server.openConnections == 0 { try await Task.sleep(for: .milliseconds(10)) }
            try await Task.sleep(for: .milliseconds(1_500))
            async let waiting = Self.run(["openssl", "s_client", "-connect", "127.0.0.1:\(port)", "-quiet", "-ign_eof"],
                                         input: "GET /waiting HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
            #expect(await handshaking?.hasInput(within: 1_000) == false, "the handshake under way is kept")
            #expect(server.idleConnectionsClosedAtLimit == 0)
            handshaking = nil  // closed by its client: the waiting one is accepted
            let (_, output) = try await waiting
            #expect(output.hasPrefix("HTTP/1.1 200 OK"), "\(output)")
        }
    }

    /// A chain file whose leaf is not first is refused saying so, not only as a wrong key. Found by a review.
    @Test func aChainWithTheLeafNotFirstSaysSo() throws {
        let leaf = try SelfSignedCertificate.make()
        let other = try SelfSignedCertificate.make()
        let chain = URL(fileURLWithPath: leaf.certificatePath).deletingLastPathComponent()
            .appendingPathComponent("wrong-order.pem")
        let pems = try [other.certificatePath, leaf.certificatePath].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        try (pems[0] + pems[1]).write(to: chain)
        #expect {
            _ = try TLSServerContext(certificateChainPath: chain.path, privateKeyPath: leaf.privateKeyPath)
        } throws: { error in
            "\(error)".contains("the leaf must come first")
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

    /// A plain HTTP request on the TLS port gets a plain 400 saying so, then the close, as nginx answers it; found by
    /// a review: the client got a reset and no word of why. Other bytes that are no TLS are dropped. The answer
    /// carries the configured error fields but `Strict-Transport-Security`, which RFC 6797 §7.2 forbids over plain
    /// HTTP (found by a black-box review).
    @Test func aPlainHTTPRequestOnTheTLSPortIsToldSoAndOtherPlainTextIsDropped() async throws {
        let tls = try await Self.makeCertificate()
        let errorHeaders: HTTPHeaders = ["Strict-Transport-Security": "max-age=31536000", "X-Frame-Options": "DENY"]
        try await withServer(tls: tls, errorHeaders: errorHeaders) { _, port in
            let client = try RawClient(port: port)
            try client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
            let answer = String(decoding: await client.readToEnd(), as: UTF8.self)
            #expect(answer.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(answer)")
            #expect(answer.contains("X-Frame-Options: DENY\r\n"), "\(answer)")
            #expect(!answer.lowercased().contains("strict-transport-security"), "\(answer)")
            #expect(answer.hasSuffix(#"{"error":true,"reason":"This port serves HTTPS: a plain HTTP request was sent "#
                                     + #"to it; use https://"}"#))

            let other = try RawClient(port: port)
            try other.send("hello there\r\n\r\n")
            #expect(await other.isClosedByPeer())
        }
    }

    @Test func missingCertificateFailsStart() {
        let server = HTTPServer(configuration: .init(port: 0, tls: .init(certificatePath: "/nonexistent/c.pem",
                                                                         privateKeyPath: "/nonexistent/k.pem")),
                                responder: EchoResponder(), logger: .init(label: "test"))
        #expect(throws: (any Error).self) { try server.start() }
    }

    /// `reloadTLS()` (SIGHUP in `siwa serve`): connections accepted afterwards get the renewed certificate, a
    /// keep-alive connection begun before keeps the one it began with, and a file that does not load leaves the
    /// server on the certificate it had. Each self-signed certificate is its own CA, so a client trusting one of
    /// them tells which one the server presented.
    @Test func reloadedFilesServeNewConnectionsWhileOpenOnesKeepTheirCertificate() async throws {
        let first = try SelfSignedCertificate.make()
        let second = try SelfSignedCertificate.make()
        let served = FileManager.default.temporaryDirectory.appendingPathComponent("tls-served-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: served) }
        let files = TLSServerConfiguration(certificatePath: served.appendingPathComponent("cert.pem").path,
                                           privateKeyPath: served.appendingPathComponent("key.pem").path)
        func install(_ certificate: SelfSignedCertificate) throws {
            try certificate.install(certificateAt: files.certificatePath, keyAt: files.privateKeyPath)
        }
        func client(trusting certificate: SelfSignedCertificate) -> HTTPClient {
            HTTPClient(configuration: .init(connectTimeout: HTTPClientTLSTests.connectTimeout,
                                            extraCAFile: certificate.certificatePath))
        }
        try install(first)
        try await withServer(tls: files) { server, port in
            let request = HTTPClientRequest(url: "https://localhost:\(port)/secure")
            let keptAlive = client(trusting: first)
            #expect(try await keptAlive.send(request).body == Array("secure".utf8))
            await #expect(throws: HTTPClientError.self) { try await client(trusting: second).send(request) }

            try install(second)
            #expect(try await offThePool { try server.reloadTLS() } != nil)
            #expect(try await client(trusting: second).send(request).body == Array("secure".utf8), "a new connection")
            await #expect(throws: HTTPClientError.self) { try await client(trusting: first).send(request) }
            #expect(try await keptAlive.send(request).body == Array("secure".utf8), "the connection begun before")
            #expect(keptAlive.statistics.opened == 1)

            try Data("not a certificate".utf8).write(to: URL(fileURLWithPath: files.certificatePath))
            let refused = await #expect(throws: TLSServerContext.FileError.self) {
                _ = try await offThePool { try server.reloadTLS() }
            }
            #expect(refused?.file == .certificateChain)
            #expect(try await client(trusting: second).send(request).status == .ok, "still the renewed certificate")
        }
    }

    @Test func reloadingAServerWithoutTLSDoesNothing() async throws {
        let reloaded = try await withServer { server, _ in try await offThePool { try server.reloadTLS() } }
        #expect(reloaded == nil)
    }
}
