import HTTPCore

/// One level of the routing trie, built once from the route list and never changed afterwards.
///
/// Children are tried in order of specificity: constant segment, then one-segment wildcard (`:name` or `*`),
/// then the catch-all (`**`). Parameter names live in each route, so `/users/:id` and `/users/:userID/posts`
/// share the wildcard child.
final class RouterNode: Sendable {
    let routes: [HTTPMethod: Route]
    let catchallRoutes: [HTTPMethod: Route]
    let constants: [String: RouterNode]
    let wildcard: RouterNode?

    typealias Entry = (remaining: ArraySlice<PathComponent>, route: Route)

    init(entries: [Entry]) throws {
        var routes: [HTTPMethod: Route] = [:]
        var catchallRoutes: [HTTPMethod: Route] = [:]
        var constantEntries: [String: [Entry]] = [:]
        var wildcardEntries: [Entry] = []
        for entry in entries {
            guard let first = entry.remaining.first else {
                try Self.insert(entry.route, into: &routes)
                continue
            }
            let rest = entry.remaining.dropFirst()
            switch first {
            case .constant(let value): constantEntries[value, default: []].append((rest, entry.route))
            case .parameter, .anything: wildcardEntries.append((rest, entry.route))
            case .catchall:
                guard rest.isEmpty else { throw RouterError.catchallNotLast(entry.route.description) }
                try Self.insert(entry.route, into: &catchallRoutes)
            }
        }
        self.routes = routes
        self.catchallRoutes = catchallRoutes
        self.constants = try constantEntries.mapValues { try RouterNode(entries: $0) }
        self.wildcard = wildcardEntries.isEmpty ? nil : try RouterNode(entries: wildcardEntries)
    }

    private static func insert(_ route: Route, into table: inout [HTTPMethod: Route]) throws {
        if let existing = table[route.method] {
            throw RouterError.duplicateRoute(existing: existing.description, new: route.description)
        }
        table[route.method] = route
    }

    /// Finds the route for `method`, trying the most specific branch first and backtracking.
    /// - Parameters:
    ///   - captured: values of the one-segment wildcards on the path so far, in order.
    ///   - allowed: filled with the methods of paths that matched without a route for `method`.
    func find(_ method: HTTPMethod, _ segments: ArraySlice<String>, captured: inout [String],
              allowed: inout Set<HTTPMethod>) -> RouterMatch? {
        guard let segment = segments.first else {
            if let route = Self.route(for: method, in: routes) {
                return RouterMatch(route: route, captured: captured, catchall: [])
            }
            allowed.formUnion(routes.keys)
            return nil
        }
        let rest = segments.dropFirst()
        if let child = constants[segment], let match = child.find(method, rest, captured: &captured, allowed: &allowed) {
            return match
        }
        if let wildcard {
            captured.append(segment)
            if let match = wildcard.find(method, rest, captured: &captured, allowed: &allowed) { return match }
            captured.removeLast()
        }
        if !catchallRoutes.isEmpty {
            if let route = Self.route(for: method, in: catchallRoutes) {
                return RouterMatch(route: route, captured: captured, catchall: Array(segments))
            }
            allowed.formUnion(catchallRoutes.keys)
        }
        return nil
    }

    /// HEAD is answered by the GET route when there is no HEAD route (RFC 9110 §9.3.2).
    private static func route(for method: HTTPMethod, in table: [HTTPMethod: Route]) -> Route? {
        if let route = table[method] { return route }
        if method == .HEAD { return table[.GET] }
        return nil
    }
}

/// A route found for a request, with the raw captured values that `Parameters` names.
struct RouterMatch {
    let route: Route
    let captured: [String]
    let catchall: [String]

    var parameters: Parameters {
        var parameters = Parameters()
        var values = captured.makeIterator()
        for component in route.path {
            switch component {
            case .parameter(let name): if let value = values.next() { parameters.set(name, to: value) }
            case .anything: _ = values.next()
            case .constant, .catchall: break
            }
        }
        parameters.catchall = catchall
        return parameters
    }
}
