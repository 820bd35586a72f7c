import HTTPCore

/// The frozen route table: a trie over percent-decoded path segments, one route per method at each leaf.
struct Router: Responder {
    let root: RouterNode
    let routes: [Route]
    /// `HTTPMethod.recognized` and the methods of the routes: any other is 501.
    let methods: Set<HTTPMethod>

    /// Builds the trie; fails on duplicate routes or a misplaced `**`.
    init(routes: [Route]) throws {
        let indexed = routes.enumerated().map { index, route in
            var route = route
            route.index = index
            return route
        }
        self.routes = indexed
        methods = HTTPMethod.recognized.union(routes.map(\.method))
        root = try RouterNode(entries: indexed.map { ($0.path[...], $0) })
    }

    enum Lookup {
        case found(RouterMatch)
        case methodNotAllowed(allowed: [HTTPMethod])
        case notFound
    }

    func lookup(_ method: HTTPMethod, segments: [String]) -> Lookup {
        var captured: [String] = []
        var allowed: Set<HTTPMethod> = []
        if let match = root.find(method, segments[...], captured: &captured, allowed: &allowed) {
            return .found(match)
        }
        if allowed.isEmpty { return .notFound }
        if allowed.contains(.GET) { allowed.insert(.HEAD) }
        allowed.insert(.OPTIONS)
        return .methodNotAllowed(allowed: allowed.sorted { $0.rawValue < $1.rawValue })
    }

    /// Runs the matching route; 404 when no path matches, 405 with `Allow` when the method does not (RFC 9110 §15.5.6),
    /// and 204 with `Allow` for an OPTIONS request to a known path without its own OPTIONS route (RFC 9110 §9.3.7).
    /// A method neither HTTP nor a route defines (`methods`) is 501 on every path (§9.1); it is looked at only
    /// when no route answers, so the requests that find theirs pay nothing for it.
    func respond(to request: Request) async throws -> Response {
        guard let segments = request.pathSegments else {
            throw Abort(.badRequest, reason: "Malformed request path")
        }
        switch lookup(request.method, segments: segments) {
        case .found(let match):
            request.parameters = match.parameters
            request.route = match.route
            return try await match.route.responder.respond(to: request)
        case .methodNotAllowed(let allowed):
            try refuseUnrecognized(request.method)
            let allow = allowed.map(\.rawValue).joined(separator: ", ")
            if request.method == .OPTIONS {
                return Response(status: .noContent, headers: ["Allow": allow])
            }
            throw Abort(.methodNotAllowed, headers: ["Allow": allow])
        case .notFound:
            try refuseUnrecognized(request.method)
            throw Abort(.notFound)
        }
    }

    /// 501 for a method neither HTTP nor a route defines.
    private func refuseUnrecognized(_ method: HTTPMethod) throws {
        guard methods.contains(method) else {
            throw Abort(.notImplemented, reason: "The method \(LogEscaping.redactingCredentials(method.rawValue)) is not implemented")
        }
    }

    /// One line per route, `METHOD /path`, sorted by path then method: what `siwa routes` prints.
    var description: String {
        routes.sorted { ($0.path.string, $0.method.rawValue) < ($1.path.string, $1.method.rawValue) }
            .map(\.description)
            .joined(separator: "\n")
    }
}
