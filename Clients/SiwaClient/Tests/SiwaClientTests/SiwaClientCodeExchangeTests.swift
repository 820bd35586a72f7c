import Foundation
import SiwaClient
import Testing

/// Sign-ins with what the device really gets (the stand-in's `/dev/app-credential`): the authorization code
/// exchanged by the server at the stand-in's `/auth/token`, and the nonce binding.
@Suite(.enabled(if: LiveServer.isConfigured), .timeLimit(.minutes(1)))
struct SiwaClientCodeExchangeTests {
    static func email() -> String { "code-\(UUID().uuidString.prefix(8).lowercased())@example.com" }

    @Test func signInWithTheAuthorizationCode() async throws {
        let credential = try await StandInCredential.make(email: Self.email())
        let siwa = SiwaClient(serverURL: try LiveServer.serverURL)
        let signedIn = try await siwa.signIn(credential: credential.credential)
        #expect(try await siwa.me().id == signedIn.userID)
    }

    @Test func aCodeOtherThanTheTokensIsUnauthorized() async throws {
        let credential = try await StandInCredential.make(email: Self.email())
        let siwa = SiwaClient(serverURL: try LiveServer.serverURL)
        let error = await #expect(throws: SiwaError.self) {
            try await siwa.signIn(identityToken: credential.identityToken, authorizationCode: "c0ffee-not-the-code")
        }
        #expect(error?.kind == .unauthorized)
        #expect(error?.status == 401)
        #expect(error?.reason.isEmpty == false)
        #expect(siwa.bearerToken == nil)
    }

    @Test func aCodeUsedTwiceIsBadRequest() async throws {
        let credential = try await StandInCredential.make(email: Self.email())
        try await SiwaClient(serverURL: try LiveServer.serverURL).signIn(credential: credential.credential)
        let siwa = SiwaClient(serverURL: try LiveServer.serverURL)
        let error = await #expect(throws: SiwaError.self) { try await siwa.signIn(credential: credential.credential) }
        #expect(error?.kind == .badRequest)
        #expect(error?.status == 400)
        #expect(error?.reason.isEmpty == false)
        #expect(siwa.bearerToken == nil)
    }

    @Test func aTokenWithANonceNeedsTheNonce() async throws {
        let nonce = UUID().uuidString
        let credential = try await StandInCredential.make(email: Self.email(), nonce: nonce)
        let siwa = SiwaClient(serverURL: try LiveServer.serverURL)
        let error = await #expect(throws: SiwaError.self) {
            try await siwa.signIn(identityToken: credential.identityToken)
        }
        #expect(error?.kind == .unauthorized)
        #expect(error?.reason.contains("nonce") == true)
        try await siwa.signIn(identityToken: credential.identityToken, nonce: nonce)
        #expect(siwa.bearerToken != nil)
    }
}
