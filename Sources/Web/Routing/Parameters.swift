/// Values captured from the request path by a route's `:name` components, percent-decoded.
package struct Parameters: Sendable {
    private var values: [String: String] = [:]
    /// The segments matched by a trailing `**`.
    package internal(set) var catchall: [String] = []

    package init() {}

    /// The value of parameter `name`, or nil when the route has no such parameter.
    package func get(_ name: String) -> String? { values[name] }

    /// The value of parameter `name` converted to `T`, or nil when missing or not convertible.
    package func get<T: LosslessStringConvertible>(_ name: String, as type: T.Type = T.self) -> T? {
        values[name].flatMap(T.init)
    }

    /// The value of parameter `name`; throws 400 when missing or not convertible to `T`.
    package func require<T: LosslessStringConvertible>(_ name: String, as type: T.Type = T.self) throws -> T {
        guard let raw = values[name] else { throw Abort(.badRequest, reason: "Missing path parameter '\(name)'") }
        guard let value = T(raw) else { throw Abort(.badRequest, reason: "Path parameter '\(name)' is invalid") }
        return value
    }

    /// The value of parameter `name`; throws 400 when missing.
    package func require(_ name: String) throws -> String {
        try require(name, as: String.self)
    }

    /// The segments matched by a trailing `**`.
    package func getCatchall() -> [String] { catchall }

    mutating func set(_ name: String, to value: String) { values[name] = value }
}
