import Foundation
import HTTPCore
import Testing
@testable import App

/// `Resources/Public` through the whole server: types, validators, and no way out of the folder.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct StaticFilesTests {
    @Test func stylesheetIsServedWithValidators() async throws {
        try await TestApp.with(lifecycle: false) { app in
            let css = try await app.send(.GET, "/styles.css")
            #expect(css.status == .ok)
            #expect(css.headers["Content-Type"]?.hasPrefix("text/css") == true)
            let etag = try #require(css.headers["ETag"])
            #expect(css.headers["Last-Modified"] != nil)
            #expect(css.headers["Cache-Control"] == "no-cache", "a browser revalidates, so an upgrade is seen at once")
            let again = try await app.send(.GET, "/styles.css", headers: ["If-None-Match": etag])
            #expect(again.status == .notModified)
            #expect(again.headers["Cache-Control"] == "no-cache")
            #expect(again.body.isEmpty)
            let head = try await app.send(.HEAD, "/styles.css")
            #expect(head.status == .ok)
            #expect(head.body.isEmpty)
        }
    }

    @Test(arguments: ["/../Package.swift", "/%2e%2e/Package.swift", "/%2E%2E%2FPackage.swift", "/..%2fREADME.md",
                      "/.env", "/Views/layout.mustache"])
    func nothingOutsideThePublicFolder(_ path: String) async throws {
        try await TestApp.with(lifecycle: false) { app in
            let response = try await app.send(.GET, path)
            #expect([400, 404].contains(response.status.code), "\(path): \(response.status)")
            #expect(!response.text.contains("PackageDescription"))
            #expect(!response.text.contains("{{"))
        }
    }
}
