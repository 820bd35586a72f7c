import Foundation

/// Configuration variables: the process environment over a `.env` file, with typed access.
///
/// ```swift
/// let env = try Environment.load()                       // process environment wins over .env
/// let port = try env.get("PORT", as: Int.self) ?? 8080
/// let audience = try env.require("IOS_APPLICATION_IDENTIFIER", as: [String].self)
/// ```
/// Empty values count as unset. Errors name the variable, never its value (it may be a secret).
package struct Environment: Sendable {
    package let values: [String: String]
    /// The variables the `.env` file sets more than once, with their line numbers (the last one counts), that the
    /// process environment does not set.
    package var repeatedInDotEnv: [String: [Int]] = [:]

    package init(_ values: [String: String]) {
        self.values = values
    }

    /// The process environment over the variables of the `.env` file at `dotEnvPath` (skipped when nil or missing).
    /// A variable set in the process wins even when empty, so `METRICS_TOKEN= siwa serve` turns off what `.env`
    /// turns on: the empty value then counts as unset, and the default applies.
    package static func load(dotEnvPath: String? = ".env",
                            processEnvironment: [String: String] = ProcessInfo.processInfo.environment) throws -> Environment {
        let file = try dotEnvPath.map { try DotEnv.read(path: $0) }
        var environment = Environment((file?.values ?? [:]).merging(processEnvironment) { _, process in process })
        // A variable the process sets takes none of the file's lines: no "last one counts" to say (found by a review).
        environment.repeatedInDotEnv = (file?.repeated ?? [:]).filter { processEnvironment[$0.key] == nil }
        return environment
    }

    /// The text of `key`, nil when unset or empty.
    package func get(_ key: String) -> String? {
        guard let value = values[key], !value.isEmpty else { return nil }
        return value
    }

    /// The value of `key` as `T`, nil when unset. - Throws: `ConfigurationError.malformed` when it does not convert.
    package func get<T: EnvironmentValue>(_ key: String, as type: T.Type) throws(ConfigurationError) -> T? {
        guard let text = get(key) else { return nil }
        guard let value = T(environmentValue: text) else {
            throw ConfigurationError.malformed(name: key, expected: T.environmentDescription)
        }
        return value
    }

    /// The value of `key` as `T`. - Throws: `ConfigurationError` when unset or malformed.
    package func require<T: EnvironmentValue>(_ key: String, as type: T.Type = String.self) throws -> T {
        guard let value = try get(key, as: type) else { throw ConfigurationError.missing(key) }
        return value
    }

    /// `key` from the process environment.
    package static func get(_ key: String) -> String? {
        Environment(ProcessInfo.processInfo.environment).get(key)
    }

    /// `key` from the process environment as `T`.
    package static func get<T: EnvironmentValue>(_ key: String, as type: T.Type) throws -> T? {
        try Environment(ProcessInfo.processInfo.environment).get(key, as: type)
    }

    /// `key` from the process environment as `T`; throws when unset or malformed.
    package static func require<T: EnvironmentValue>(_ key: String, as type: T.Type = String.self) throws -> T {
        try Environment(ProcessInfo.processInfo.environment).require(key, as: type)
    }
}

/// Why the configuration cannot be used.
package enum ConfigurationError: Error, Equatable, CustomStringConvertible {
    case missing(String)
    case malformed(name: String, expected: String)
    /// A line of the dotenv `file` (`.env`, or the one `--env-file` names) that cannot be read; line 0: the file.
    case malformedDotEnv(line: Int, message: String, file: String = ".env")

    package var description: String {
        switch self {
        case .missing(let name): "Missing required environment variable \(name)"
        case .malformed(let name, let expected): "Environment variable \(name) must be \(expected)"
        case .malformedDotEnv(0, let message, let file): "\(file) \(message)"
        case .malformedDotEnv(let line, let message, let file): "\(file) line \(line): \(message)"
        }
    }

    /// The variable the error is about, or the dotenv file.
    package var subject: String {
        switch self {
        case .missing(let name), .malformed(let name, _): name
        case .malformedDotEnv(_, _, let file): file
        }
    }

    /// What is wrong, without the subject: the rest of a line that starts with `subject`.
    package var detail: String {
        switch self {
        case .missing: "required but not set"
        case .malformed(_, let expected): "must be \(expected)"
        case .malformedDotEnv(0, let message, _): message
        case .malformedDotEnv(let line, let message, _): "line \(line): \(message)"
        }
    }
}
