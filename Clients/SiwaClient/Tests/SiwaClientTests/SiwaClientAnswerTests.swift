import Foundation
import HTTPTypes
import OpenAPIRuntime
import SiwaClient
import Testing

/// Answers as a proxy in front of the server may give them, from a scripted transport: the kind and `retryAfter`
/// come from the status and headers whatever the body, a 401 ends the token, and a cancelled call is cancelled.
/// Found by an audit from an app developer's side.
struct SiwaClientAnswerTests {
    /// Answers every request with `status`, `headers` and `body`, after `delay`.
    struct ScriptedTransport: ClientTransport {
        var status: Int
        var headers: HTTPFields = [:]
        var body: String = ""
        var delay: Duration = .zero

        func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws
            -> (HTTPResponse, HTTPBody?)
        {
            try await Task.sleep(for: delay)
            return (HTTPResponse(status: .init(code: status), headerFields: headers), HTTPBody(self.body))
        }
    }

    static let server = URL(string: "https://siwa.example.com")!

    static func html(_ status: Int, retryAfter: String? = nil) -> ScriptedTransport {
        var headers: HTTPFields = [.contentType: "text/html"]
        if let retryAfter { headers[.retryAfter] = retryAfter }
        return ScriptedTransport(status: status, headers: headers, body: "<html>gateway</html>")
    }

    @Test(arguments: [(503, SiwaError.Kind.serviceUnavailable), (502, .serviceUnavailable), (504, .serviceUnavailable),
                      (429, .tooManyRequests), (400, .badRequest), (401, .unauthorized), (500, .unexpectedStatus)])
    func aStatusWithAnHTMLBodyKeepsItsKindAndRetryAfter(_ status: Int, _ kind: SiwaError.Kind) async throws {
        let siwa = SiwaClient(serverURL: Self.server, transport: Self.html(status, retryAfter: "30"))
        let error = await #expect(throws: SiwaError.self) { try await siwa.signIn(identityToken: "x") }
        #expect(error?.kind == kind)
        #expect(error?.status == status)
        #expect(error?.retryAfter == .seconds(30))
    }

    @Test func aDocumentedErrorIsItsReasonInLocalizedDescription() async throws {
        let siwa = SiwaClient(serverURL: Self.server, transport: ScriptedTransport(
            status: 400, headers: [.contentType: "application/json"], body: #"{"error":true,"reason":"Bad token"}"#))
        let error = await #expect(throws: SiwaError.self) { try await siwa.signIn(identityToken: "x") }
        #expect(error?.localizedDescription == "Bad token")
    }

    @Test(arguments: [(#"{"error":true,"reason":"Invalid or expired bearer token"}"#, "application/json"),
                      ("unauthorized", "text/plain")])
    func aTokenTheServerRefusesIsForgotten(_ body: String, _ type: String) async throws {
        let transport = ScriptedTransport(status: 401, headers: [.contentType: type], body: body)
        let reading = SiwaClient(serverURL: Self.server, bearerToken: "ended", transport: transport)
        let error = await #expect(throws: SiwaError.self) { try await reading.me() }
        #expect(error?.kind == .unauthorized)
        #expect(reading.bearerToken == nil, "signed out")

        let deleting = SiwaClient(serverURL: Self.server, bearerToken: "ended", transport: transport)
        await #expect(throws: SiwaError.self) { try await deleting.deleteAccount() }
        #expect(deleting.bearerToken == nil)

        let leaving = SiwaClient(serverURL: Self.server, bearerToken: "ended", transport: transport)
        try await leaving.logOut()
        #expect(leaving.bearerToken == nil, "logging out with an ended token signs out without an error")
    }

    @Test func aLogOutTheServerCannotTakeKeepsTheTokenUntilSignedOutLocally() async throws {
        let siwa = SiwaClient(serverURL: Self.server, bearerToken: "kept", transport: Self.html(503, retryAfter: "5"))
        let error = await #expect(throws: SiwaError.self) { try await siwa.logOut() }
        #expect(error?.kind == .serviceUnavailable)
        #expect(siwa.bearerToken == "kept", "to try again")
        siwa.signOutLocally()
        #expect(siwa.bearerToken == nil)
    }

    /// A status the document does not list, with the server's error JSON (its 404 for a wrong `serverURL`, a 500),
    /// keeps the server's reason. Found by an audit: it was "unexpected status".
    @Test(arguments: [404, 500])
    func anUndocumentedStatusKeepsTheServersReason(_ status: Int) async throws {
        let siwa = SiwaClient(serverURL: Self.server, bearerToken: "kept", transport: ScriptedTransport(
            status: status, headers: [.contentType: "application/json"], body: #"{"error":true,"reason":"Not Found"}"#))
        for call in [{ _ = try await siwa.signIn(identityToken: "x") }, { _ = try await siwa.me() }] as [() async throws -> Void] {
            let error = await #expect(throws: SiwaError.self) { try await call() }
            #expect(error?.kind == .unexpectedStatus && error?.status == status)
            #expect(error?.reason == "Not Found")
        }
        let page = SiwaClient(serverURL: Self.server, transport: Self.html(status))
        let error = await #expect(throws: SiwaError.self) { try await page.signIn(identityToken: "x") }
        #expect(error?.reason == "The server answered an unexpected status \(status).")
    }

    /// A 200 whose body is not the documented JSON (a captive portal's page, a website at `serverURL`) says so, not
    /// that the status was unexpected.
    @Test(arguments: [("text/html", "<html>Welcome to the airport Wi-Fi</html>"), ("application/json", #"{"ok":true}"#)])
    func aSuccessOfAnotherShapeSaysItIsNotTheDocumentedJSON(_ type: String, _ body: String) async throws {
        let siwa = SiwaClient(serverURL: Self.server, transport: ScriptedTransport(status: 200, headers: [.contentType: type],
                                                                                   body: body))
        let error = await #expect(throws: SiwaError.self) { try await siwa.signIn(identityToken: "x") }
        #expect(error?.kind == .unexpectedStatus && error?.status == 200)
        #expect(error?.reason == "The server's answer is not the documented JSON.")
        #expect(siwa.bearerToken == nil)
    }

    /// Fails every request with `error`, as URLSession does before an answer.
    struct FailingTransport: ClientTransport {
        var error: URLError.Code

        func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws
            -> (HTTPResponse, HTTPBody?)
        {
            throw URLError(error)
        }
    }

    /// A call that got no answer says why in a sentence and keeps URLSession's code, so an app can tell an offline
    /// device from a silent server. Found by an audit: the reason was Foundation's debug dump of the NSError.
    @Test(arguments: [(URLError.Code.notConnectedToInternet, "The device is offline."),
                      (.timedOut, "The server did not answer in time."),
                      (.cannotConnectToHost, "The server refused the connection."),
                      (.networkConnectionLost, "The connection to the server was lost."),
                      (.badServerResponse, "The call failed before an answer (URL error -1011).")])
    func aTransportFailureKeepsURLSessionsCode(_ code: URLError.Code, _ reason: String) async throws {
        let siwa = SiwaClient(serverURL: Self.server, bearerToken: "kept", transport: FailingTransport(error: code))
        let error = await #expect(throws: SiwaError.self) { try await siwa.me() }
        #expect(error?.kind == .transport && error?.status == nil)
        #expect(error?.networkError == code)
        #expect(error?.reason == reason && error?.localizedDescription == reason)
        #expect(siwa.bearerToken == "kept")
    }

    @Test func aCancelledCallThrowsCancellationError() async throws {
        let siwa = SiwaClient(serverURL: Self.server, transport: ScriptedTransport(status: 200, delay: .seconds(60)))
        let call = Task { try await siwa.signIn(identityToken: "x") }
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
    }

    /// Answers `getMe` 401 after a pause, and `signIn` 200 with the token "T2" at once.
    struct SlowRefusalThenSignIn: ClientTransport {
        func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws
            -> (HTTPResponse, HTTPBody?)
        {
            if operationID == "signIn" {
                let json = #"{"id":"0193a7c4-5f6e-7d8c-9b0a-1c2d3e4f5a6b","value":"T2","user":{"id":"0193a7c4-5f6e-7d8c-9b0a-1c2d3e4f5a6c"}}"#
                return (HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"]), HTTPBody(json))
            }
            try await Task.sleep(for: .milliseconds(300))
            return (HTTPResponse(status: .unauthorized, headerFields: [.contentType: "application/json"]),
                    HTTPBody(#"{"error":true,"reason":"Invalid or expired bearer token"}"#))
        }
    }

    /// A late 401 about a token that a sign-in replaced meanwhile leaves the new token alone (found by a review).
    @Test func aLateRefusalOfAReplacedTokenKeepsTheNewOne() async throws {
        let siwa = SiwaClient(serverURL: Self.server, bearerToken: "T1", transport: SlowRefusalThenSignIn())
        let late = Task { try await siwa.me() }
        try await Task.sleep(for: .milliseconds(50))
        try await siwa.signIn(identityToken: "x")
        #expect(siwa.bearerToken == "T2")
        await #expect(throws: SiwaError.self) { try await late.value }
        #expect(siwa.bearerToken == "T2", "the 401 was about T1")
    }
}
