/// One component of a route's path: `"users"`, `":id"`, `"*"` (any one segment) or `"**"` (the rest).
package enum PathComponent: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// A segment that must equal this text exactly (after percent-decoding of the request path).
    case constant(String)
    /// Any one segment, captured under this name: `req.parameters.get("id")`.
    case parameter(String)
    /// Any one segment, not captured.
    case anything
    /// One or more remaining segments: `req.parameters.getCatchall()`. Only valid as the last component.
    case catchall

    package init(stringLiteral value: String) {
        if value == "*" {
            self = .anything
        } else if value == "**" {
            self = .catchall
        } else if value.hasPrefix(":"), value.count > 1 {
            self = .parameter(String(value.dropFirst()))
        } else {
            self = .constant(value)
        }
    }

    package var description: String {
        switch self {
        case .constant(let value): value
        case .parameter(let name): ":" + name
        case .anything: "*"
        case .catchall: "**"
        }
    }

    /// Splits constants written with slashes (`"api/users"`) into one component per segment.
    static func expand(_ components: [PathComponent]) -> [PathComponent] {
        components.flatMap { component -> [PathComponent] in
            guard case .constant(let value) = component, value.contains("/") || value.isEmpty else { return [component] }
            return value.split(separator: "/").map { PathComponent(stringLiteral: String($0)) }
        }
    }
}

extension Array where Element == PathComponent {
    /// The path as written in a route table: `/api/users/:id`.
    package var string: String { "/" + map(\.description).joined(separator: "/") }
}
