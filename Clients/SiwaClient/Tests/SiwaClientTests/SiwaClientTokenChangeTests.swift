import Foundation
import HTTPTypes
import OpenAPIRuntime
import SiwaClient
import Testing

/// A value behind a lock (`Mutex` needs iOS 18 and macOS 15; the package supports iOS 16 and macOS 13).
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&value) } }
}

/// What the app is told of the bearer token, and the header fields it adds, from a scripted transport.
struct SiwaClientTokenChangeTests {
    /// Answers each request with the next of `answers` (status, JSON body) and records what was sent.
    final class Recording: ClientTransport, Sendable {
        let answers: Locked<[(Int, String)]>
        let sent = Locked<[HTTPRequest]>([])

        init(_ answers: [(Int, String)]) { self.answers = Locked(answers) }

        func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws
            -> (HTTPResponse, HTTPBody?)
        {
            sent.withLock { $0.append(request) }
            let (status, json) = answers.withLock { $0.removeFirst() }
            return (HTTPResponse(status: .init(code: status), headerFields: [.contentType: "application/json"]),
                    HTTPBody(json))
        }
    }

    static let signedIn = #"{"id":"t1","value":"bearer-1","user":{"id":"u1"}}"#
    static let ended = #"{"error":true,"reason":"Invalid or expired bearer token"}"#

    /// The token after a sign-in, nil once a 401 ended it, and nil once after `signOutLocally()` following a new
    /// sign-in: what keeps the Keychain in step. Found by a black-box review: an app copying the README kept a dead
    /// token and restored it at the next launch.
    @Test func theAppIsToldOfEachChangeOfTheToken() async throws {
        let seen = Locked<[String?]>([])
        let transport = Recording([(200, Self.signedIn), (401, Self.ended), (200, Self.signedIn)])
        let siwa = SiwaClient(serverURL: URL(string: "https://siwa.example.com")!, transport: transport,
                              onBearerTokenChange: { token in seen.withLock { $0.append(token) } })
        try await siwa.signIn(identityToken: "x")
        await #expect(throws: SiwaError.self) { _ = try await siwa.me() }
        try await siwa.signIn(identityToken: "x")
        siwa.signOutLocally()
        siwa.signOutLocally()
        #expect(seen.withLock { $0 } == ["bearer-1", nil, "bearer-1", nil])
    }

    /// `headers` go with every request, the bearer token with those that need it.
    @Test func theAppsHeaderFieldsGoWithEveryRequest() async throws {
        let transport = Recording([(200, Self.signedIn), (401, Self.ended)])
        let siwa = SiwaClient(serverURL: URL(string: "https://siwa.example.com")!,
                              headers: ["User-Agent": "MyApp/1.2", "X-App-Version": "42", "bad name": "left out"],
                              transport: transport)
        try await siwa.signIn(identityToken: "x")
        _ = try? await siwa.me()
        let sent = transport.sent.withLock { $0 }
        #expect(sent.count == 2)
        for request in sent {
            #expect(request.headerFields[.userAgent] == "MyApp/1.2")
            #expect(request.headerFields[HTTPField.Name("X-App-Version")!] == "42")
        }
        #expect(sent[0].headerFields[.authorization] == nil)
        #expect(sent[1].headerFields[.authorization] == "Bearer bearer-1")
    }
}
