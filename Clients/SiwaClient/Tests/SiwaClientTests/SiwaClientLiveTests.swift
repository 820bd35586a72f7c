import Foundation
import SiwaClient
import Testing

/// The client against a running server with the Apple stand-in (`Scripts/check-openapi` starts both): each call
/// and its error paths, over real sockets on loopback.
@Suite(.enabled(if: LiveServer.isConfigured), .timeLimit(.minutes(1)))
struct SiwaClientLiveTests {
    func credential(_ user: LiveServer.User, name: PersonNameComponents? = nil) throws -> AppleIDCredential {
        AppleIDCredential(identityToken: Data(try LiveServer.mint(for: user).utf8), authorizationCode: nil,
                          user: user.sub, fullName: name, email: user.email)
    }

    @Test func signInThenMeThenLogOut() async throws {
        let user = LiveServer.User()
        let siwa = SiwaClient(serverURL: try LiveServer.serverURL)
        let name = PersonNameComponents(givenName: "Jane", familyName: "Appleseed")
        let signedIn = try await siwa.signIn(credential: try credential(user, name: name))
        let bearer = try #require(siwa.bearerToken)
        #expect(bearer.count == 43)

        let me = try await siwa.me()
        #expect(me.id == signedIn.userID)
        #expect(me.email == user.email)
        #expect(me.name == "Jane Appleseed")
        #expect(!me.isPrivateEmail)

        try await siwa.logOut()
        #expect(siwa.bearerToken == nil)
        let stale = SiwaClient(serverURL: try LiveServer.serverURL, bearerToken: bearer)
        let error = await #expect(throws: SiwaError.self) { try await stale.me() }
        #expect(error?.kind == .unauthorized)
        #expect(error?.status == 401)
        #expect(error?.reason.isEmpty == false)
        #expect(stale.bearerToken == nil, "a token the server refuses is forgotten: signed out")
    }

    @Test func deleteAccountEndsTheUser() async throws {
        let user = LiveServer.User()
        let siwa = SiwaClient(serverURL: try LiveServer.serverURL)
        let first = try await siwa.signIn(credential: try credential(user))
        let bearer = try #require(siwa.bearerToken)
        try await siwa.deleteAccount()
        #expect(siwa.bearerToken == nil)

        let stale = SiwaClient(serverURL: try LiveServer.serverURL, bearerToken: bearer)
        let error = await #expect(throws: SiwaError.self) { try await stale.me() }
        #expect(error?.kind == .unauthorized)

        let again = try await siwa.signIn(identityToken: try LiveServer.mint(for: user))
        #expect(again.userID != first.userID)
    }

    @Test func refusedTokenIsUnauthorizedWithTheServersReason() async throws {
        let siwa = SiwaClient(serverURL: try LiveServer.serverURL)
        let error = await #expect(throws: SiwaError.self) {
            try await siwa.signIn(identityToken: "eyJhbGciOiJub25lIn0.e30.")
        }
        #expect(error?.kind == .unauthorized)
        #expect(error?.status == 401)
        #expect(error?.reason.isEmpty == false)
        #expect(error?.retryAfter == nil)
        #expect(siwa.bearerToken == nil)
    }

    @Test func emptyTokenIsBadRequest() async throws {
        let siwa = SiwaClient(serverURL: try LiveServer.serverURL)
        let error = await #expect(throws: SiwaError.self) { try await siwa.signIn(identityToken: "") }
        #expect(error?.kind == .badRequest)
        #expect(error?.status == 400)
        #expect(error?.reason == "Field 'token' must not be empty")
    }

    @Test func appleUnreachableIsServiceUnavailableWithRetryAfter() async throws {
        let siwa = SiwaClient(serverURL: try LiveServer.unavailableURL)
        let error = await #expect(throws: SiwaError.self) {
            try await siwa.signIn(identityToken: try LiveServer.mint(for: LiveServer.User()))
        }
        #expect(error?.kind == .serviceUnavailable)
        #expect(error?.status == 503)
        #expect(error?.retryAfter == .seconds(10))
        #expect(error?.reason.isEmpty == false)
    }

    @Test func callsThatNeedATokenSendNothingBeforeASignIn() async throws {
        let siwa = SiwaClient(serverURL: try LiveServer.serverURL)
        for call in [{ _ = try await siwa.me() }, { try await siwa.logOut() }, { try await siwa.deleteAccount() }] {
            let error = await #expect(throws: SiwaError.self) { try await call() }
            #expect(error?.kind == .notSignedIn)
            #expect(error?.status == nil)
        }
    }
}
