import Foundation
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
    /// the files are read at start only. Found by an audit: an expired certificate started without a word.
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

    @Test func plainHTTPNeverGetsHSTS() async throws {
        try await TestApp.with { app in
            let health = try await app.send(.GET, "/health")
            #expect(health.headers["Strict-Transport-Security"] == nil)
        }
    }
}
