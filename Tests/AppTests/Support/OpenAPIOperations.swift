import Foundation
@testable import App

/// The operations `Resources/openapi.yaml` documents, as `METHOD /path` lines like `siwa routes` prints.
///
/// Reads only the shape the document keeps (OpenAPI 3.1 §4.8.8, §4.8.9): under the top-level `paths:`, each path a
/// key indented by two spaces, its operations keys indented by four. Paths marked `x-siwa-static: true` are files
/// of `Resources/Public`, served before routing, so they are not in the route table and are listed apart.
struct OpenAPIOperations {
    /// The HTTP methods an OpenAPI path item may hold (§4.8.9.1).
    static let methods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// `METHOD /path` of every routed operation.
    var routed: Set<String> = []
    /// The paths of static files.
    var staticPaths: Set<String> = []

    /// The document as the server serves it.
    static var documentPath: String { Configuration.locateResources("Resources") + "/" + OpenAPIController.fileName }

    init(yaml: String) {
        var inPaths = false
        var path: String?
        var operations: [String] = []
        func finishPath() {
            guard let current = path else { return }
            if operations.contains("x-siwa-static") {
                staticPaths.insert(current)
            } else {
                for method in operations where Self.methods.contains(method) {
                    routed.insert("\(method.uppercased()) \(current)")
                }
            }
            path = nil
            operations = []
        }
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" "), !line.isEmpty, !line.hasPrefix("#") {
                finishPath()
                inPaths = line == "paths:"
                continue
            }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), let key = Self.key(of: line.dropFirst(2)) {
                finishPath()
                path = key
            } else if line.hasPrefix("    "), !line.hasPrefix("     "), let key = Self.key(of: line.dropFirst(4)) {
                operations.append(key)
            }
        }
        finishPath()
    }

    /// The key of a `key:` or `key: value` line, unquoted; nil for anything else.
    static func key(of line: Substring) -> String? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let key = line[..<colon]
        guard !key.isEmpty, !key.contains(" ") else { return nil }
        return key.trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
    }
}
