import Foundation
import HTTPCore
import Testing
@testable import App

/// Deleting the account from the home page: needs the session and the CSRF token the page carries.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct WebAccountDeletionTests {
    /// Signs in through the web flow; returns the session cookie value.
    private func webSession(_ app: TestApp, subject: String) async throws -> String {
        let handle = try await app.webSignIn(subject: subject, extraFields: [("firstName", "Jane")])
        return try #require(handle.cookieValue("session"))
    }

    private func csrfToken(in page: String) throws -> String {
        let marker = "name=\"csrf\" value=\""
        let start = try #require(page.range(of: marker)).upperBound
        return String(page[start...].prefix { $0 != "\"" })
    }

    @Test func deletionNeedsTheCSRFTokenOfTheSession() async throws {
        try await TestApp.with { app in
            var session = try await webSession(app, subject: "001.del")
            let home = try await app.send(.GET, "/", headers: ["Cookie": "session=\(session)"])
            let csrf = try csrfToken(in: home.text)
            #expect(csrf.count >= 43)
            if let rotated = home.cookieValue("session") { session = rotated }

            let forged = try await app.sendForm("/account/delete", [("csrf", "forged")], cookies: ["session": session])
            #expect(forged.status == .forbidden)
            let noSession = try await app.sendForm("/account/delete", [("csrf", csrf)])
            #expect(noSession.status == .unauthorized)
            #expect(try await app.count("users") == 1)

            let deleted = try await app.sendForm("/account/delete", [("csrf", csrf)], cookies: ["session": session])
            #expect(deleted.status == .seeOther)
            #expect(deleted.headers["Location"] == "/")
            #expect(try await app.count("users") == 0)
            #expect(try await app.count("sessions") == 0)
        }
    }
}
