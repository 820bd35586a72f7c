import Foundation
import HTTPCore
import Testing
@testable import Web

struct ContentTests {
    struct SignIn: Content, Equatable {
        let token: String
        let name: String?
        let age: Int?
        let remember: Bool?
    }

    struct Nested: Content, Equatable {
        struct Inner: Codable, Equatable { let first: String; let count: Int }
        let inner: Inner
        let tag: String?
    }

    static func app() -> Application {
        let app = Application.fixture()
        app.post("signin") { req in try req.content.decode(SignIn.self) }
        app.post("nested") { req in try req.content.decode(Nested.self) }
        return app
    }

    @Test func decodesJSONAndEchoesJSON() async throws {
        let response = try await Self.app().testing.send(.POST, "/signin", json: SignIn(token: "t", name: "Jane", age: 3, remember: nil))
        #expect(response.status == .ok)
        #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(try response.decode(SignIn.self) == SignIn(token: "t", name: "Jane", age: 3, remember: nil))
    }

    /// Every JSON body passes the strict RFC 8259 parser before `JSONDecoder`: what `JSONDecoder` alone would
    /// take (a trailing comma, a comment, a leading zero...) is 400; a repeated name is valid JSON and decodes.
    @Test(arguments: [
        #"{"token":"t",}"#, #"{"token":"t"} // c"#, #"{"token":"t","age":01}"#, #"{"token":'t'}"#,
        #"{"token":"t","name":"\ud800"}"#, "\u{FEFF}{\"token\":\"t\"}", #"{"token":"t"}]"#,
    ])
    func refusesJSONThatRFC8259Refuses(_ body: String) async throws {
        let response = try await Self.app().testing.send(.POST, "/signin", headers: ["Content-Type": "application/json"],
                                                         body: Array(body.utf8))
        #expect(response.status == .badRequest)
        #expect(response.text.contains("Malformed request body"))
    }

    /// Of a repeated name the last counts, at any depth, as a proxy or log reading the body the usual way sees it
    /// (`JSONDecoder` alone keeps the first).
    @Test(arguments: [
        (#"{"token":"a","token":"b"}"#, SignIn(token: "b", name: nil, age: nil, remember: nil)),
        (#"{"token":"a","age":1,"token":"b","age":2}"#, SignIn(token: "b", name: nil, age: 2, remember: nil)),
        (#"{"name":"n","token":"a","name":null}"#, SignIn(token: "a", name: nil, age: nil, remember: nil)),
    ])
    func ofARepeatedMemberNameTheLastCounts(_ body: String, _ expected: SignIn) async throws {
        let response = try await Self.app().testing.send(.POST, "/signin", headers: ["Content-Type": "application/json"],
                                                         body: Array(body.utf8))
        #expect(response.status == .ok)
        #expect(try response.decode(SignIn.self) == expected)
        let nested = try await Self.app().testing.send(
            .POST, "/nested", headers: ["Content-Type": "application/json"],
            body: Array(#"{"inner":{"first":"a","count":1,"first":"b"},"tag":"x","inner":{"first":"c","count":3}}"#.utf8))
        #expect(try nested.decode(Nested.self) == Nested(inner: .init(first: "c", count: 3), tag: "x"))
    }

    @Test func decodesFormsWithPlusPercentAndNesting() async throws {
        let app = Self.app()
        let body = "token=a%2Bb+c&name=Jos%C3%A9&age=41&remember=on"
        let response = try await app.testing.send(.POST, "/signin", headers: ["Content-Type": "application/x-www-form-urlencoded; charset=UTF-8"],
                                                  body: Array(body.utf8))
        #expect(try response.decode(SignIn.self) == SignIn(token: "a+b c", name: "José", age: 41, remember: true))
        let nested = try await app.testing.send(.POST, "/nested", form: [("inner[first]", "x"), ("inner[count]", "2")])
        #expect(try nested.decode(Nested.self) == Nested(inner: .init(first: "x", count: 2), tag: nil))
    }

    @Test(arguments: [
        (#"{"name":"x"}"#, "Missing field 'token'"),
        (#"{"token":5}"#, "Field 'token' must be a string"),
        (#"{"token":"t","age":"old"}"#, "Field 'age' must be an integer"),
        (#"{"token":null}"#, "Field 'token' must not be null"),
        (#"{"token":"#, "Malformed request body"),
        (#"[1]"#, "Request body must be an object"),
        ("", "Request body is empty"),
    ])
    func badJSONIs400NamingTheField(body: String, reason: String) async throws {
        let response = try await Self.app().testing.send(.POST, "/signin", headers: ["Content-Type": "application/json"],
                                                         body: Array(body.utf8))
        #expect(response.status == .badRequest)
        #expect(try response.decode(ErrorBody.self) == ErrorBody(error: true, reason: reason))
    }

    @Test func nestedJSONFieldPathsAreNamed() async throws {
        let response = try await Self.app().testing.send(.POST, "/nested", headers: ["Content-Type": "application/json"],
                                                         body: Array(#"{"inner":{"first":"a","count":true}}"#.utf8))
        #expect(try response.decode(ErrorBody.self).reason == "Field 'inner.count' must be an integer")
    }

    @Test(arguments: [
        ("token=%zz", "Malformed form body"),
        ("token=%C3", "Malformed form body"),
        ("name=x", "Missing field 'token'"),
        ("token=t&age=1.5", "Field 'age' must be an integer"),
        ("token=t&remember=maybe", "Field 'remember' must be a boolean"),
    ])
    func badFormsAre400(body: String, reason: String) async throws {
        let response = try await Self.app().testing.send(.POST, "/signin", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                                                         body: Array(body.utf8))
        #expect(response.status == .badRequest)
        #expect(try response.decode(ErrorBody.self).reason == reason)
    }

    @Test(arguments: [nil, "text/plain", "multipart/form-data; boundary=x"])
    func otherContentTypesAre415(contentType: String?) async throws {
        var headers: HTTPHeaders = [:]
        if let contentType { headers.add(name: "Content-Type", value: contentType) }
        let response = try await Self.app().testing.send(.POST, "/signin", headers: headers, body: Array("token=x".utf8))
        #expect(response.status == .unsupportedMediaType)
        #expect(try response.decode(ErrorBody.self).error)
    }

    /// A body with a content coding other than `identity` cannot be read, so it is 415 (RFC 9110 §15.5.16), not a
    /// 400 for "malformed" bytes or, with `br` on a plain body, read as if uncoded. Found by an audit.
    @Test(arguments: [("gzip", 415), ("br", 415), ("identity, gzip", 415), ("identity", 200), ("Identity", 200)])
    func aContentCodingOtherThanIdentityIs415(coding: String, status: Int) async throws {
        let response = try await Self.app().testing.send(.POST, "/signin", headers: [
            "Content-Type": "application/json", "Content-Encoding": coding,
        ], body: Array(#"{"token":"t"}"#.utf8))
        #expect(response.status.code == status, "\(coding)")
        if status == 415 { #expect(try response.decode(ErrorBody.self).reason.contains("Content-Encoding")) }
    }

    /// Two `Content-Type` fields are 400 in either order: a proxy could read the other one. Found by an audit: the
    /// first counted, so JSON then text was read as JSON and text then JSON was 415.
    @Test(arguments: [["application/json", "text/plain"], ["text/plain", "application/json"],
                      ["application/json", "application/json"]])
    func twoContentTypeFieldsAre400(types: [String]) async throws {
        var headers: HTTPHeaders = [:]
        for type in types { headers.add(name: "Content-Type", value: type) }
        let response = try await Self.app().testing.send(.POST, "/signin", headers: headers,
                                                         body: Array(#"{"token":"t"}"#.utf8))
        #expect(response.status == .badRequest)
        #expect(try response.decode(ErrorBody.self).reason == "Content-Type is given more than once")
    }

    /// A route that documents one media type answers 415 for the other, as its API document says.
    @Test func aRouteTakesOnlyTheBodiesItAccepts() async throws {
        let app = Application.fixture()
        app.post("json") { req in try req.content.decode(SignIn.self, accepting: .json) }
        app.post("form") { req in try req.content.decode(SignIn.self, accepting: .form) }
        let json: HTTPHeaders = ["Content-Type": "application/json"]
        let form: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded"]
        for (path, headers, body, status) in [
            ("/json", json, #"{"token":"x"}"#, HTTPStatus.ok), ("/json", form, "token=x", .unsupportedMediaType),
            ("/form", form, "token=x", .ok), ("/form", json, #"{"token":"x"}"#, .unsupportedMediaType),
        ] {
            let response = try await app.testing.send(.POST, path, headers: headers, body: Array(body.utf8))
            #expect(response.status == status, "\(path) \(headers)")
            if status == .unsupportedMediaType {
                let reason = try response.decode(ErrorBody.self).reason
                #expect(reason.contains(path == "/json" ? "application/json" : "application/x-www-form-urlencoded"))
            }
        }
    }

    @Test func plusJSONMediaTypesAreJSON() async throws {
        let response = try await Self.app().testing.send(.POST, "/signin", headers: ["Content-Type": "application/vnd.api+json"],
                                                         body: Array(#"{"token":"x"}"#.utf8))
        #expect(try response.decode(SignIn.self).token == "x")
    }

    @Test func arraysOfContentEncodeAsJSON() async throws {
        let app = Application.fixture()
        app.get("list") { _ in [SignIn(token: "a", name: nil, age: nil, remember: nil)] }
        #expect(try await app.testing.send(.GET, "/list").text == #"[{"token":"a"}]"#)
    }

    @Test func emptyFormFieldsAreNilForOptionals() throws {
        let decoded = try FormDecoder().decode(SignIn.self, from: ["token": "", "name": "", "age": "", "remember": ""])
        #expect(decoded == SignIn(token: "", name: nil, age: nil, remember: nil))
    }

    @Test func formDecoderDirectly() throws {
        enum Color: String, Decodable { case red, blue }
        struct Pick: Decodable { let color: Color; let ratio: Double }
        let pick = try FormDecoder().decode(Pick.self, from: ["color": "blue", "ratio": "0.5"])
        #expect(pick.color == .blue)
        #expect(pick.ratio == 0.5)
        #expect(throws: DecodingError.self) { try FormDecoder().decode(Pick.self, from: ["color": "green", "ratio": "1"]) }
    }
}
