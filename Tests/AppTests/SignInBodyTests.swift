import Foundation
import HTTPCore
import JSON
import Testing
@testable import App

/// The sign-in body read by the JSON module's strict parser gives what `JSONDecoder` gives, and refuses (to hand the body to
/// `JSONDecoder`, which then answers) whatever it cannot read alike.
struct SignInBodyTests {
    typealias Body = UsersController.SignInRequest

    static func direct(_ json: String) -> Body? {
        guard let members = try? JSONValue.parseObjectMembers(Array(json.utf8)) else { return nil }
        return Body(members: members)
    }

    @Test(arguments: [
        #"{"token":"a.b.c"}"#,
        #"{"token":"a.b.c","name":"Ada Lovelace","nonce":"n-1","authorizationCode":"c"}"#,
        #"{"name":null,"token":"x","nonce":null,"authorizationCode":null,"extra":[1,{"y":true}]}"#,
        #" { "token" : "t\u00e9\"\\\/\n" , "name" : "\ud83d\ude00" } "#,
        #"{"token":""}"#,
    ])
    func readsLikeJSONDecoder(json: String) throws {
        let expected = try JSONDecoder().decode(Body.self, from: Data(json.utf8))
        let body = try #require(Self.direct(json))
        #expect(body.token == expected.token)
        #expect(body.name == expected.name)
        #expect(body.nonce == expected.nonce)
        #expect(body.authorizationCode == expected.authorizationCode)
    }

    @Test(arguments: [
        #"{}"#, #"{"name":"x"}"#, #"{"token":null}"#, #"{"token":1}"#, #"{"token":"x","name":5}"#,
        #"{"token":"x","nonce":{}}"#, #"{"token":"x","authorizationCode":true}"#, #"{"token":"a","token":"b"}"#,
        #"["token"]"#, #""token""#, #"{"token":"x"} x"#, "",
    ])
    func leavesEverythingElseToJSONDecoder(json: String) {
        #expect(Self.direct(json) == nil)
    }

    /// A repeated `token` signs in with the last one, whichever of the two is valid, as a proxy that reads the
    /// body the usual way sees it.
    @Test func ofARepeatedTokenTheLastCounts() async throws {
        try await TestApp.with { app in
            let token = try app.identityToken()
            for (body, status) in [(#"{"token":"junk","token":"\#(token)"}"#, HTTPStatus.ok),
                                   (#"{"token":"\#(token)","token":"junk"}"#, .unauthorized)] {
                let response = try await app.send(.POST, "/api/users/siwa", headers: ["Content-Type": "application/json"],
                                                  body: Array(body.utf8))
                #expect(response.status == status)
            }
        }
    }

    /// The whole route: a body the strict parser refuses is 400, never handed on to `JSONDecoder`.
    @Test func aTrailingCommaIs400() async throws {
        try await TestApp.with { app in
            let token = try app.identityToken()
            let response = try await app.send(.POST, "/api/users/siwa", headers: ["Content-Type": "application/json"],
                                              body: Array(#"{"token":"\#(token)",}"#.utf8))
            #expect(response.status == .badRequest)
            #expect(try response.json()["error"] as? Bool == true)
            #expect(try await app.count("users") == 0)
        }
    }
}
