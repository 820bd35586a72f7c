import Foundation
import HTTPCore
import Testing
import Web
@testable import App

/// `Resources/openapi.yaml` against the server: every route documented and every documented route served, both
/// ways, so a route added without its documentation fails the build; and the document served at `/openapi.yaml`.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct OpenAPIDocumentTests {
    func document() throws -> OpenAPIOperations {
        OpenAPIOperations(yaml: try String(contentsOfFile: OpenAPIOperations.documentPath, encoding: .utf8))
    }

    /// What the document says the server answers: its routed operations and its static files (`GET`).
    func documented() throws -> Set<String> {
        let document = try document()
        return document.routed.union(document.staticPaths.map { "GET " + $0 })
    }

    /// The project's own resources, as `siwa serve` finds them without `RESOURCES_PATH`.
    static func routeTable() async throws -> String {
        try await SiwaServer.routeTable(resourcesPath: Configuration.resourcesPath(environment: [:]))
    }

    /// `siwa routes` lists the static files of `RESOURCES_PATH` (from the environment or `.env`), those the server
    /// serves. Found by an audit: it listed the build's own `Resources/Public`, or failed where that was not there.
    @Test func theStaticFilesListedAreThoseOfResourcesPath() async throws {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("resources-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: copy) }
        try FileManager.default.copyItem(atPath: Configuration.resourcesPath(environment: [:]), toPath: copy.path)
        try Data("x".utf8).write(to: copy.appendingPathComponent("Public/extra.txt"))
        let resources = try Configuration.resourcesPath(environment: ["RESOURCES_PATH": copy.path])
        #expect(resources == copy.path)
        #expect(try await SiwaServer.routeTable(resourcesPath: resources).contains("GET /extra.txt"))
        #expect(try await !Self.routeTable().contains("GET /extra.txt"))
        #expect(throws: ConfigurationError.self) {
            try Configuration.resourcesPath(environment: ["RESOURCES_PATH": copy.appendingPathComponent("Public").path])
        }
    }

    @Test func everyRouteIsDocumented() async throws {
        let table = Set(try await Self.routeTable().split(separator: "\n").map(String.init))
        let undocumented = table.subtracting(try documented()).sorted()
        #expect(undocumented.isEmpty, "routes missing from Resources/openapi.yaml: \(undocumented)")
    }

    /// Static files included: found by an audit, `siwa routes` left out the files `openapi.yaml` documents.
    @Test func everyDocumentedRouteIsServed() async throws {
        let table = Set(try await Self.routeTable().split(separator: "\n").map(String.init))
        #expect(table.contains("GET /styles.css") && table.contains("GET /siwa-popup.js"))
        let unserved = try documented().subtracting(table).sorted()
        #expect(unserved.isEmpty, "Resources/openapi.yaml documents routes `siwa routes` does not list: \(unserved)")
    }

    @Test func theRouteTableIsReadFromTheDocument() throws {
        let operations = try document()
        #expect(operations.routed.contains("POST /api/users/siwa"))
        #expect(operations.routed.contains("GET /openapi.yaml"))
        #expect(operations.routed.contains("DELETE /api/users/me"))
        #expect(operations.routed.count >= 17)
    }

    @Test func documentedStaticFilesExist() throws {
        let publicFolder = Configuration.locateResources("Resources") + "/Public"
        let staticPaths = try document().staticPaths
        #expect(!staticPaths.isEmpty)
        for path in staticPaths {
            #expect(FileManager.default.fileExists(atPath: publicFolder + path), "\(path) is not in Resources/Public")
        }
    }

    @Test func documentIsServedAsYAML() async throws {
        try await TestApp.with(lifecycle: false) { app in
            let response = try await app.send(.GET, "/openapi.yaml")
            #expect(response.status == .ok)
            #expect(response.headers["Content-Type"] == "application/yaml")
            let file = try String(contentsOfFile: OpenAPIOperations.documentPath, encoding: .utf8)
            #expect(response.text == file)
        }
    }
}
