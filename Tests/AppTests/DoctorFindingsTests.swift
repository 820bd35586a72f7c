import Foundation
import Testing
@testable import App

/// The findings `siwa doctor` makes from the variables alone: identifier shapes and the redirect URL.
struct DoctorFindingsTests {
    private func doctor(_ variables: [String: String]) throws -> IdentifierCheck {
        IdentifierCheck(configuration: try OperatorEnvironment(dotEnvPath: "/nonexistent/.env",
                                                               processEnvironment: variables).configuration)
    }

    private func redirect(_ url: String, appleBaseURL: String = "https://appleid.apple.com") throws -> DoctorFinding {
        try doctor(["APPLE_BASE_URL": appleBaseURL]).redirectFinding(url)
    }

    @Test func httpsOnARegisteredDomainIsRight() throws {
        let finding = try redirect("https://siwa.example.com/login/siwa/callback")
        #expect(finding.verdict == .ok)
        #expect(finding.description
            == "ok   SIWA_REDIRECT_URL: https://siwa.example.com/login/siwa/callback is HTTPS on siwa.example.com")
    }

    @Test func plainHTTPIsWrongWithTheFix() throws {
        let finding = try redirect("http://example.com/login/siwa/callback")
        #expect(finding.description == "FAIL SIWA_REDIRECT_URL: http://example.com/login/siwa/callback is not HTTPS; Apple "
            + "only redirects to https URLs on a domain registered for the Services ID (use https://<host>/login/siwa/callback)")
    }

    @Test func loopbackHTTPIsRightOnlyWithTheStandIn() throws {
        #expect(try redirect("http://127.0.0.1:8080/login/siwa/callback", appleBaseURL: "http://127.0.0.1:9090").verdict == .ok)
        #expect(try redirect("http://127.0.0.1:8080/login/siwa/callback").verdict == .fail)
    }

    @Test(arguments: ["https://127.0.0.1/login/siwa/callback", "https://localhost/login/siwa/callback",
                      "https://10.0.0.7/login/siwa/callback", "https://[::1]/login/siwa/callback"])
    func addressesAreNotRegisteredDomains(_ url: String) throws {
        let finding = try redirect(url)
        #expect(finding.verdict == .fail)
        #expect(finding.message.contains("not a registered domain"))
    }

    /// Found by an audit: a user name and password, or a fragment, were "ok", and the password was printed.
    @Test func credentialsOrAFragmentAreWrongAndTheCredentialsAreNotShown() throws {
        let credentials = try redirect("https://user:hunter2@siwa.example.com/login/siwa/callback")
        #expect(credentials.verdict == .fail)
        #expect(!credentials.description.contains("hunter2") && !credentials.description.contains("user:"),
                "\(credentials)")
        #expect(credentials.message.hasPrefix("https://siwa.example.com/login/siwa/callback with a user name"))
        let fragment = try redirect("https://siwa.example.com/login/siwa/callback#top")
        #expect(fragment.verdict == .fail)
        #expect(fragment.message.contains("RFC 6749 §3.1.2"))
    }

    @Test func anotherPathIsNotTheServersCallback() throws {
        let finding = try redirect("https://siwa.example.com/callback")
        #expect(finding.verdict == .fail)
        #expect(finding.message.contains("register and set https://siwa.example.com/login/siwa/callback"))
    }

    @Test(arguments: [("com.example.app", true), ("com.example-2.App", true), ("example", false), ("com.example app", false),
                      ("com..example", false), ("com.exämple.app", false), (".com.example", false)])
    func identifierShapes(_ id: String, _ wellFormed: Bool) {
        #expect(IdentifierCheck.isWellFormedIdentifier(id) == wellFormed)
    }

    @Test func theWebFlowNeedsBothVariablesAndItsOwnIdentifier() throws {
        let half = try doctor(["IOS_APPLICATION_IDENTIFIER": "com.example.app",
                               "WEBSITE_APPLICATION_IDENTIFIER": "com.example.web"]).findings()
        #expect(half.contains { $0.verdict == .fail && $0.subject == "SIWA_REDIRECT_URL" })
        let shared = try doctor(["IOS_APPLICATION_IDENTIFIER": "com.example.app",
                                 "WEBSITE_APPLICATION_IDENTIFIER": "com.example.app",
                                 "SIWA_REDIRECT_URL": "https://siwa.example.com/login/siwa/callback"]).findings()
        #expect(shared.contains { $0.verdict == .fail && $0.message.contains("needs a Services ID of its own") })
        let apiOnly = try doctor(["IOS_APPLICATION_IDENTIFIER": "com.example.app"]).findings()
        #expect(apiOnly.map(\.verdict) == [.ok, .off])
        let nothing = try doctor([:]).findings()
        #expect(nothing.last?.verdict == .fail)
        #expect(nothing.last?.subject == "routes")
    }
}
