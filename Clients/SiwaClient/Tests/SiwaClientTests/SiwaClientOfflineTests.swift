import Foundation
import SiwaClient
import Testing

/// What the client decides without a server: credentials, and a server that is not there.
struct SiwaClientOfflineTests {
    @Test func credentialWithoutIdentityTokenIsRefusedBeforeSending() async throws {
        let siwa = SiwaClient(serverURL: URL(fileURLWithPath: "/nonexistent"))
        let credential = AppleIDCredential(identityToken: nil, authorizationCode: nil, user: "000001.abc.0001")
        let error = await #expect(throws: SiwaError.self) { try await siwa.signIn(credential: credential) }
        #expect(error?.kind == .badRequest)
        #expect(error?.status == nil)
    }

    @Test func noServerIsATransportError() async throws {
        let port = try ClosedPort.make()
        let siwa = SiwaClient(serverURL: try #require(URL(string: "http://127.0.0.1:\(port)")))
        let error = await #expect(throws: SiwaError.self) { try await siwa.signIn(identityToken: "x") }
        #expect(error?.kind == .transport)
        #expect(error?.status == nil)
        #expect(error?.networkError == .cannotConnectToHost, "\(String(describing: error))")
        #expect(error?.reason == "The server refused the connection.")
    }
}
