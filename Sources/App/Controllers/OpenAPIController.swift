import Foundation
import Web

/// `GET /openapi.yaml`: the OpenAPI document of every route (README "The API, described"), read once at start.
///
/// Served as `application/yaml`, the media type RFC 9512 §2.1 registers for YAML.
struct OpenAPIController: RouteCollection {
    /// The media type of the answer (RFC 9512 §2.1).
    static let contentType = "application/yaml"
    /// Where the document lives under `RESOURCES_PATH`.
    static let fileName = "openapi.yaml"

    let document: [UInt8]

    /// Reads the document from `resourcesPath`.
    /// - Throws: `CocoaError` when the file cannot be read: a server without its document does not start.
    init(resourcesPath: String) throws {
        document = Array(try Data(contentsOf: URL(fileURLWithPath: resourcesPath + "/" + Self.fileName)))
    }

    func boot(routes: any RoutesBuilder) throws {
        routes.get("openapi.yaml", use: serve)
    }

    @Sendable func serve(_ req: Request) async throws -> Response {
        Response(status: .ok, headers: ["Content-Type": Self.contentType], body: .bytes(document))
    }
}
