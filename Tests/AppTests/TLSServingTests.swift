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

    @Test func plainHTTPNeverGetsHSTS() async throws {
        try await TestApp.with { app in
            let health = try await app.send(.GET, "/health")
            #expect(health.headers["Strict-Transport-Security"] == nil)
        }
    }
}
