import Foundation
import Glibc
import HTTPCore
import TestSupport
import Testing
@testable import App

/// TLS terminated by the server itself (`TLS_CERT_PATH` / `TLS_KEY_PATH`): the API and the web flow over https://,
/// with the session cookie marked `Secure`.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct TLSServingTests {
    @Test func apiAndWebFlowWorkOverHTTPS() async throws {
        let certificate = try SelfSignedCertificate.make()
        try await TestApp.with(configure: { configuration in
            configuration.tls = TLSServerConfiguration(certificatePath: certificate.certificatePath,
                                                       privateKeyPath: certificate.privateKeyPath)
        }) { app in
            #expect(app.baseURL.hasPrefix("https://"))
            let health = try await app.send(.GET, "/health")
            #expect(health.status == .ok)
            #expect(health.headers["Strict-Transport-Security"] != nil, "HSTS only over HTTPS")

            let signIn = try await app.sendJSON(.POST, "/api/users/siwa", ["token": try app.identityToken()])
            #expect(signIn.status == .ok)

            let handle = try await app.webSignIn(subject: "001.tls")
            #expect(handle.status == .seeOther)
            let cookie = try #require(handle.setCookies["session"])
            #expect(cookie.contains("; Secure"))
        }
    }

    /// The start warns of a certificate within 14 days of its end, and of one past it, which `siwa doctor` fails:
    /// the files are read at start (and on SIGHUP). Found by an audit: an expired certificate started without a word.
    @Test func aCertificateNearOrPastItsEndIsNamedAtStart() throws {
        let warnFrom = TLSFilesCheck.expiryWarningDays * 86_400
        #expect(TLSFilesCheck.expiry(secondsLeft: warnFrom) == nil)
        #expect(TLSFilesCheck.expiry(secondsLeft: warnFrom - 1)?.expired == false)
        #expect(TLSFilesCheck.expiry(secondsLeft: warnFrom - 1)?.message.contains("expires in 13 day(s)") == true)
        #expect(TLSFilesCheck.expiry(secondsLeft: -1)?.expired == true)
        #expect(TLSFilesCheck.expiry(secondsLeft: -3 * 86_400)?.message.contains("has expired (3 day(s) ago)") == true)
        var configuration = Configuration()
        for (days, warned) in [(1, true), (30, false)] {
            let certificate = try SelfSignedCertificate.make(days: days)
            configuration.tls = TLSServerConfiguration(certificatePath: certificate.certificatePath,
                                                       privateKeyPath: certificate.privateKeyPath)
            let expiry = try TLSFilesCheck.check(configuration)
            #expect((expiry != nil) == warned, "\(String(describing: expiry))")
            #expect(expiry?.expired != true)
        }
    }

    /// `siwa serve` reads `TLS_CERT_PATH` and `TLS_KEY_PATH` again on SIGHUP (a renewed certificate, certbot's
    /// deploy hook), and keeps serving the certificate it had when the new files do not load. Each self-signed
    /// certificate is its own CA, so a client trusting one of them tells which one the server presented.
    @Test func sighupServesARenewedCertificateWithoutARestart() async throws {
        try await SpawnedApp.with { app in
            let first = try SelfSignedCertificate.make()
            let second = try SelfSignedCertificate.make()
            let certificatePath = app.directory.appendingPathComponent("fullchain.pem")
            let keyPath = app.directory.appendingPathComponent("privkey.pem")
            func install(_ certificate: SelfSignedCertificate) throws {
                try certificate.install(certificateAt: certificatePath.path, keyAt: keyPath.path)
            }
            func health(trusting certificate: SelfSignedCertificate, port: Int) async -> Bool {
                let client = HTTPClient(configuration: .init(extraCAFile: certificate.certificatePath))
                let response = try? await client.send(HTTPClientRequest(url: "https://localhost:\(port)/health"))
                return response?.status == .ok
            }
            func waitForLine(_ server: SiwaProcess, _ text: String, count: Int = 1) async throws {
                for _ in 0..<500 where server.output.components(separatedBy: text).count <= count {
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(server.output.components(separatedBy: text).count > count, "no line \"\(text)\"")
            }
            try install(first)
            let server = try app.spawn(["TLS_CERT_PATH": certificatePath.path, "TLS_KEY_PATH": keyPath.path])
            let port = try await server.waitForPort(after: "siwa listening on https://127.0.0.1:")
            #expect(await health(trusting: first, port: port))
            #expect(await !health(trusting: second, port: port))

            try install(second)
            server.signal(SIGHUP)
            try await waitForLine(server, "TLS_CERT_PATH and TLS_KEY_PATH read again")
            #expect(await health(trusting: second, port: port), "the renewed certificate")
            #expect(await !health(trusting: first, port: port))

            try Data("not a certificate".utf8).write(to: certificatePath)
            server.signal(SIGHUP)
            try await waitForLine(server, "TLS files not reloaded")
            #expect(server.output.contains("TLS_CERT_PATH"))
            #expect(await health(trusting: second, port: port), "still the certificate it had")
            #expect(await server.terminate() == 0)
        }
    }

    @Test func plainHTTPNeverGetsHSTS() async throws {
        try await TestApp.with { app in
            let health = try await app.send(.GET, "/health")
            #expect(health.headers["Strict-Transport-Security"] == nil)
        }
    }
}
