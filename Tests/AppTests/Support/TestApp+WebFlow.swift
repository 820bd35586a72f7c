import AppleID
import CryptoCore
import Foundation
import HTTPCore
@testable import App

/// The web flow's binding in tests: a browser's `SIWA_STATE` cookie and identity tokens whose `nonce` is the hex
/// SHA-256 of it, as the login page asks Apple for.
extension TestApp {
    /// A fresh state, as `/login` would set in a browser's cookie.
    static func newState() throws -> String { Base64URL.encode(try SecureRandom.bytes(count: 32)) }

    /// The nonce a state binds a token to.
    static func nonce(forState state: String) -> String { IdentityTokenVerifier.ExpectedNonce.hash(ofState: state) }

    /// A web identity token (audience: the Services ID) bound to `state`.
    func webToken(state: String, subject: String = "001234.\(UUID().uuidString.lowercased()).0001",
                  email: String? = "jane@example.com") throws -> String {
        try identityToken(subject: subject, audience: TestApp.webClientID, email: email,
                          nonce: TestApp.nonce(forState: state))
    }

    /// A web authorization code and its identity token from the stand-in, for the Services ID and the redirect URI
    /// the tests configure, bound to `state` as the login page asks Apple.
    func webCode(state: String, subject: String, email: String) async throws -> (code: String, idToken: String) {
        try await apple.issueAuthorizationCode(clientID: TestApp.webClientID,
                                               redirectURI: "http://127.0.0.1/login/siwa/callback", subject: subject,
                                               email: email, nonce: TestApp.nonce(forState: state))
    }

    /// Posts the hand-off form as the browser holding `state` (and `cookies`) in its cookies does.
    func handle(_ fields: [(String, String)], state: String?, cookies: [String: String] = [:]) async throws
        -> HTTPClientResponse
    {
        try await sendForm("/login/siwa/handle", fields,
                           cookies: cookies.merging(state.map { ["SIWA_STATE": $0] } ?? [:]) { $1 })
    }

    /// Signs in through the handle step with a fresh bound token; returns the answer.
    func webSignIn(subject: String, email: String? = "web@example.com", extraFields: [(String, String)] = [],
                   cookies: [String: String] = [:]) async throws -> HTTPClientResponse {
        let state = try TestApp.newState()
        let token = try webToken(state: state, subject: subject, email: email)
        return try await handle([("token", token)] + extraFields, state: state, cookies: cookies)
    }
}
