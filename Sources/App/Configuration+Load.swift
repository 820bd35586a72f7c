import Foundation
import HTTPCore
import Logging
import Storage
import Web

extension Configuration {
    /// Reads the process environment, then `dotEnvPath` (the environment wins), and checks every value.
    /// - Throws: `ConfigurationError` naming the first missing or malformed variable.
    package static func load(dotEnvPath: String = ".env",
                            environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Configuration {
        var configuration = try Configuration(Environment.load(dotEnvPath: dotEnvPath, processEnvironment: environment))
        configuration.resourcesPath = locateResources(configuration.resourcesPath)
        return configuration
    }

    /// The configuration `siwa migrate` needs: the database's variables are checked, the others (which it does not
    /// use) are not, so that a malformed `PORT` does not stop a migration (found by a review).
    /// - Throws: `ConfigurationError` for a malformed `.env` or a malformed `DATABASE_*` variable.
    package static func loadForMigrations(dotEnvPath: String = ".env",
                                          environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> Configuration {
        try load(dotEnvPath: dotEnvPath, environment: environment, checking: { $0.hasPrefix("DATABASE_") })
    }

    /// The resources folder `siwa serve` would use: `RESOURCES_PATH` from the environment or `dotEnvPath`, else the
    /// one found as at start. The other variables are not read, so `siwa routes` works whatever they hold.
    /// - Throws: `ConfigurationError` for a malformed `.env` or a `RESOURCES_PATH` that holds no resources.
    package static func resourcesPath(dotEnvPath: String = ".env",
                                      environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> String {
        let configuration = try load(dotEnvPath: dotEnvPath, environment: environment,
                                     checking: { $0 == "RESOURCES_PATH" })
        return locateResources(configuration.resourcesPath)
    }

    /// The configuration as `load` reads it, refused only for a malformed `.env` or a problem with a variable that
    /// `checks` names; the other variables' problems leave their defaults.
    private static func load(dotEnvPath: String, environment: [String: String],
                             checking checks: (String) -> Bool) throws -> Configuration {
        var problems: [ConfigurationError] = []
        let configuration = Configuration(try Environment.load(dotEnvPath: dotEnvPath, processEnvironment: environment),
                                          problems: &problems)
        if let problem = problems.first(where: { checks($0.subject) }) { throw problem }
        return configuration
    }

    /// Reads the configuration from `env`, checking every value.
    /// - Throws: `ConfigurationError` naming the first missing or malformed variable.
    package init(_ env: Environment) throws {
        var problems: [ConfigurationError] = []
        self.init(env, problems: &problems)
        if let first = problems.first { throw first }
    }

    /// Reads `env` as `init(_:)` does, but goes on past a missing or malformed variable: each is added to
    /// `problems`, in the order read, and keeps its default, so that `siwa doctor` can name every one.
    package init(_ env: Environment, problems: inout [ConfigurationError]) {
        self.init()
        repeatedInDotEnv = env.repeatedInDotEnv
        func read<T>(_ fallback: T, _ value: () throws(ConfigurationError) -> T?) -> T {
            do {
                return try value() ?? fallback
            } catch {
                problems.append(error)
                return fallback
            }
        }
        func readInteger(_ env: Environment, _ name: String, in range: ClosedRange<Int>, else fallback: Int) -> Int {
            read(fallback) { () throws(ConfigurationError) in try Self.integer(env, name, in: range) }
        }
        hostname = env.get("HOSTNAME") ?? hostname
        port = readInteger(env, "PORT", in: HTTPServerConfiguration.portRange, else: port)
        databasePath = read(databasePath) { () throws(ConfigurationError) in
            guard let path = env.get("DATABASE_PATH") else { return nil }
            // SQLite's in-memory name would give each of the server's connections a database of its own: the
            // readers would never see what the writer migrated and wrote.
            guard path != ":memory:" else {
                throw .malformed(name: "DATABASE_PATH", expected: "a file path (:memory: would give each of the "
                                 + "server's SQLite connections an empty database of its own)")
            }
            return path
        }
        databaseURL = read(databaseURL) { () throws(ConfigurationError) in
            guard let url = env.get("DATABASE_URL") else { return nil }
            let parsed: PostgresURL
            do {
                parsed = try PostgresURL(url)
            } catch {
                throw .malformed(name: "DATABASE_URL", expected: "a postgres:// or postgresql:// URI libpq accepts "
                    + "(it \(error))")
            }
            // libpq opens these only as it connects, and a missing one then reads as a server that does not answer:
            // the start waited 30 s for a typo. Found by a black-box review.
            for keyword in ["sslrootcert", "sslcert", "sslkey", "sslcrl"] {
                guard let file = parsed.parameters[keyword], file != "system",
                      !FileManager.default.isReadableFile(atPath: file) else { continue }
                throw .malformed(name: "DATABASE_URL", expected: "a URI whose \(keyword) names a readable file "
                    + "(\(file) is not one)")
            }
            return parsed
        }
        databasePoolSize = readInteger(env, "DATABASE_POOL_SIZE", in: 1...1_000, else: databasePoolSize)
        databaseSynchronous = read(databaseSynchronous) { () throws(ConfigurationError) in
            switch env.get("DATABASE_SYNCHRONOUS")?.lowercased() {
            case nil, "normal": .normal
            case "full": .full
            default: throw .malformed(name: "DATABASE_SYNCHRONOUS", expected: "normal or full")
            }
        }
        iosClientIDs = read(iosClientIDs) { () throws(ConfigurationError) in
            try env.get("IOS_APPLICATION_IDENTIFIER", as: [String].self)
        }
        websiteClientID = env.get("WEBSITE_APPLICATION_IDENTIFIER")
        redirectURL = read(redirectURL) { () throws(ConfigurationError) in
            guard let url = env.get("SIWA_REDIRECT_URL") else { return nil }
            guard let parsed = URLComponents(string: url), ["http", "https"].contains(parsed.scheme?.lowercased()),
                  parsed.host?.isEmpty == false
            else { throw .malformed(name: "SIWA_REDIRECT_URL", expected: "an absolute http(s) URL") }
            guard !Self.hasUserInfo(parsed) else {
                throw .malformed(name: "SIWA_REDIRECT_URL", expected: Self.noUserInfo)
            }
            return url
        }
        webMode = read(webMode) { () throws(ConfigurationError) in
            guard let mode = env.get(WebMode.variable) else { return nil }
            guard let parsed = WebMode(environmentValue: mode) else {
                throw .malformed(name: WebMode.variable, expected: "redirect or popup")
            }
            return parsed
        }
        appleBaseURL = read(appleBaseURL) { () throws(ConfigurationError) in
            guard let base = env.get("APPLE_BASE_URL") else { return nil }
            return try Self.checkedAppleBaseURL(base)
        }
        appleKey = Self.appleKey(env, problems: &problems)
        encryptionKey = read(encryptionKey) { () throws(ConfigurationError) in
            guard let key = env.get("SIWA_ENCRYPTION_KEY") else { return nil }
            guard let bytes = Self.decodeKey(key), bytes.count == 32 else {
                throw .malformed(name: "SIWA_ENCRYPTION_KEY", expected: "32 bytes in base64 or hex")
            }
            return bytes
        }
        tls = read(tls) { () throws(ConfigurationError) in
            switch (env.get("TLS_CERT_PATH"), env.get("TLS_KEY_PATH")) {
            case let (cert?, key?): TLSServerConfiguration(certificatePath: cert, privateKeyPath: key)
            case (nil, nil): nil
            case (nil, _?): throw Self.missing("TLS_CERT_PATH", from: Self.tlsGroup, given: ["TLS_KEY_PATH"])
            case (_?, nil): throw Self.missing("TLS_KEY_PATH", from: Self.tlsGroup, given: ["TLS_CERT_PATH"])
            }
        }
        trustProxy = read(trustProxy) { () throws(ConfigurationError) in try env.get("TRUST_PROXY", as: Bool.self) }
        maxBodySize = readInteger(env, "MAX_BODY_SIZE", in: 1...(1 << 30), else: maxBodySize)
        bodyTimeoutSeconds = readInteger(env, "BODY_TIMEOUT", in: 1...Self.maxBodyTimeout, else: bodyTimeoutSeconds)
        maxConnections = readInteger(env, "MAX_CONNECTIONS", in: 1...1_000_000, else: maxConnections)
        maxConnectionsPerIP = readInteger(env, "MAX_CONNECTIONS_PER_IP", in: 0...1_000_000, else: maxConnectionsPerIP)
        shutdownGracePeriodSeconds = readInteger(env, "SHUTDOWN_GRACE_PERIOD", in: 0...Self.maxShutdownGracePeriod,
                                                 else: shutdownGracePeriodSeconds)
        signInRateLimit = readInteger(env, "SIGNIN_RATE_LIMIT", in: 0...1_000_000, else: signInRateLimit)
        signInRateBurst = readInteger(env, "SIGNIN_RATE_BURST", in: 1...1_000_000, else: signInRateBurst)
        databaseCacheKiB = readInteger(env, "DATABASE_CACHE_KIB", in: 64...1_048_576, else: databaseCacheKiB)
        databaseBusyTimeoutMilliseconds = readInteger(env, "DATABASE_BUSY_TIMEOUT_MS", in: 1...600_000,
                                                      else: databaseBusyTimeoutMilliseconds)
        logLevel = read(logLevel) { () throws(ConfigurationError) in
            guard let level = env.get("LOG_LEVEL") else { return nil }
            guard let parsed = Logger.Level(rawValue: level.lowercased()) else {
                throw .malformed(name: "LOG_LEVEL", expected: "one of trace, debug, info, notice, warning, error, critical")
            }
            return parsed
        }
        metricsToken = read(metricsToken) { () throws(ConfigurationError) in try Self.metricsToken(env) }
        resourcesPath = read(resourcesPath) { () throws(ConfigurationError) in
            guard let path = env.get("RESOURCES_PATH") else { return nil }
            guard FileManager.default.fileExists(atPath: path + "/" + Self.resourcesMarker) else {
                throw .malformed(name: "RESOURCES_PATH", expected: "a folder holding Views/ and Public/ (there is no "
                    + "\(Self.resourcesMarker) in \(path))")
            }
            return path
        }
        trustStoreFile = env.get("SSL_CERT_FILE")
        extraCAFile = env.get("SIWA_EXTRA_CA_FILE")
        databasePreparedStatements = read(databasePreparedStatements) { () throws(ConfigurationError) in
            switch env.get("DATABASE_PREPARED_STATEMENTS")?.lowercased() {
            case nil, "on", "true", "1": true
            case "off", "false", "0": false
            default: throw .malformed(name: "DATABASE_PREPARED_STATEMENTS", expected: "on or off")
            }
        }
        if databaseURL != nil, appleKey != nil, encryptionKey == nil, env.get("SIWA_ENCRYPTION_KEY") == nil {
            problems.append(.malformed(name: "SIWA_ENCRYPTION_KEY", expected: "set when DATABASE_URL and the "
                + "Apple key are: every instance must open the refresh tokens the others sealed, so they share one "
                + "32-byte key (base64 or hex, e.g. `openssl rand -base64 32`)"))
        }
        appleMaxConnections = readInteger(env, "APPLE_MAX_CONNECTIONS", in: 1...10_000, else: appleMaxConnections)
        appleTimeout = read(appleTimeout) { () throws(ConfigurationError) in
            guard let text = env.get("APPLE_TIMEOUT") else { return nil }
            guard let seconds = Double(environmentValue: text), seconds >= Self.minAppleTimeoutSeconds,
                  seconds <= Self.maxAppleTimeoutSeconds else {
                throw .malformed(name: "APPLE_TIMEOUT", expected: "seconds, at least \(Self.minAppleTimeoutSeconds) "
                                 + "and at most \(Int(Self.maxAppleTimeoutSeconds))")
            }
            return .milliseconds(Int((seconds * 1000).rounded()))
        }
        appleChoresInterval = read(appleChoresInterval) { () throws(ConfigurationError) in
            guard let text = env.get("APPLE_CHORES_INTERVAL") else { return nil }
            guard let seconds = Self.interval(text) else {
                throw .malformed(name: "APPLE_CHORES_INTERVAL",
                                 expected: "0 (off) or a duration such as 24h, 90m or 3600s, at least 1m and at most 7d")
            }
            return seconds
        }
    }

    /// The client every call to Apple goes through: `APPLE_MAX_CONNECTIONS`, `APPLE_TIMEOUT`, and the extra CA.
    package var appleClientConfiguration: HTTPClient.Configuration {
        HTTPClient.Configuration(timeout: appleTimeout, connectTimeout: min(appleTimeout, .seconds(5)),
                                 maxConnectionsPerOrigin: appleMaxConnections, trustStoreFile: trustStoreFile,
                                 extraCAFile: extraCAFile)
    }

    private static func integer(_ env: Environment, _ name: String, in range: ClosedRange<Int>) throws(ConfigurationError)
        -> Int?
    {
        let digits = env.get(name)?.trimmingCharacters(in: .whitespaces).drop { $0 == "-" } ?? ""
        // All digits but beyond `Int`: out of range rather than "not an integer".
        let tooLong = !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber } && Int(digits) == nil
        let outOfRange = ConfigurationError.malformed(name: name, expected: "an integer in \(range)")
        guard !tooLong else { throw outOfRange }
        guard let value = try env.get(name, as: Int.self) else { return nil }
        guard range.contains(value) else { throw outOfRange }
        return value
    }

    /// `APPLE_BASE_URL` without a trailing slash; `http://` only for a loopback host (the local stand-in, README
    /// "Quick start"): Apple's real endpoints are HTTPS.
    static func checkedAppleBaseURL(_ value: String) throws(ConfigurationError) -> String {
        let trimmed = value.hasSuffix("/") ? String(value.dropLast()) : value
        guard let url = URLComponents(string: trimmed), let scheme = url.scheme?.lowercased(),
              let host = url.host, !host.isEmpty, url.query == nil
        else {
            throw ConfigurationError.malformed(name: "APPLE_BASE_URL", expected: "an absolute URL such as https://appleid.apple.com")
        }
        // The client sends no credentials from a URL: every call would fail, and the URL in its log lines would
        // carry the password (found by an audit).
        guard !hasUserInfo(url) else { throw ConfigurationError.malformed(name: "APPLE_BASE_URL", expected: noUserInfo) }
        // A fragment would take in the paths appended to the base (every call a `GET /`), and a port or host the
        // client refuses would fail every call: both are named here, not by each sign-in's 503 (found by a review).
        if url.fragment != nil {
            throw ConfigurationError.malformed(name: "APPLE_BASE_URL", expected: "a URL without a #fragment")
        }
        if let refusal = HTTPClient.refusal(of: trimmed + "/auth/keys") {
            let expected = "an absolute URL such as https://appleid.apple.com (\(refusal))"
            throw ConfigurationError.malformed(name: "APPLE_BASE_URL", expected: expected)
        }
        switch scheme {
        case "https": return trimmed
        case "http" where HTTPClient.isLoopback(host: host): return trimmed
        case "http":
            throw ConfigurationError.malformed(name: "APPLE_BASE_URL", expected: "https:// (http:// only for a loopback host)")
        default: throw ConfigurationError.malformed(name: "APPLE_BASE_URL", expected: "an http(s) URL")
        }
    }

    /// Whether a URL carries a user name or password (RFC 3986 §3.2.1 deprecates `user:password` there).
    private static func hasUserInfo(_ url: URLComponents) -> Bool {
        url.percentEncodedUser != nil || url.percentEncodedPassword != nil
    }

    /// What a URL variable with a user name or password is told; the value itself is never repeated.
    private static let noUserInfo = "a URL without a user name or password (user:password@ is not sent, and would be logged)"

    /// The shortest `METRICS_TOKEN` accepted.
    package static let minimumMetricsTokenLength = 32
    /// The longest `SHUTDOWN_GRACE_PERIOD` accepted, in seconds: an hour.
    package static let maxShutdownGracePeriod = 3_600
    /// The longest `BODY_TIMEOUT` accepted, in seconds: an hour.
    package static let maxBodyTimeout = 3_600

    /// `METRICS_TOKEN`: at least `minimumMetricsTokenLength` visible ASCII characters (a bearer token,
    /// RFC 6750 §2.1, sent as is), so that a guessable value cannot open the metrics.
    private static func metricsToken(_ env: Environment) throws(ConfigurationError) -> String? {
        guard let token = env.get("METRICS_TOKEN") else { return nil }
        guard token.utf8.count >= minimumMetricsTokenLength, token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw ConfigurationError.malformed(
                name: "METRICS_TOKEN",
                expected: "at least \(minimumMetricsTokenLength) visible ASCII characters without spaces (openssl rand -hex 32)")
        }
        return token
    }

    /// Variables that are set together or not at all, and what leaving them all unset means.
    struct VariableGroup {
        /// How the messages name the group.
        let name: String
        /// What the server does with none of them set.
        let withoutThem: String
    }

    static let tlsGroup = VariableGroup(name: "the two", withoutThem: "unset both to serve plain HTTP, behind a proxy")
    static let appleKeyGroup = VariableGroup(name: "the Apple key's three variables",
                                             withoutThem: "unset all three to run without Apple's token calls")

    /// `name`, missing from a `group` of which `given` are set: says why it is needed, and how to do without.
    /// Found by a review: "Missing required environment variable APPLE_TEAM_ID" for a variable that is optional.
    static func missing(_ name: String, from group: VariableGroup, given: [String]) -> ConfigurationError {
        let setText = given.count == 1 ? "\(given[0]) is set" : "\(given.joined(separator: " and ")) are set"
        return .malformed(name: name,
                          expected: "set too: \(setText), and \(group.name) go together (\(group.withoutThem))")
    }

    /// The Apple key's three variables, all or none: each one missing of a partial set is a problem.
    private static func appleKey(_ env: Environment, problems: inout [ConfigurationError]) -> AppleKeyConfiguration? {
        let names = ["APPLE_TEAM_ID", "APPLE_KEY_ID", "APPLE_PRIVATE_KEY_PATH"]
        let values = names.map { env.get($0) }
        if values.allSatisfy({ $0 == nil }) { return nil }
        let given = zip(names, values).filter { $0.1 != nil }.map(\.0)
        let missing = zip(names, values).filter { $0.1 == nil }
            .map { Self.missing($0.0, from: appleKeyGroup, given: given) }
        guard missing.isEmpty else {
            problems += missing
            return nil
        }
        return AppleKeyConfiguration(teamID: values[0] ?? "", keyID: values[1] ?? "", privateKeyPath: values[2] ?? "")
    }

    /// A 32-byte key given as base64 (standard or URL alphabet) or 64 hex digits.
    static func decodeKey(_ text: String) -> [UInt8]? {
        if text.count == 64, text.allSatisfy(\.isHexDigit) {
            var bytes: [UInt8] = []
            var index = text.startIndex
            while index < text.endIndex {
                let next = text.index(index, offsetBy: 2)
                guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
                bytes.append(byte)
                index = next
            }
            return bytes
        }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map { [UInt8]($0) }
    }

    /// The file that tells a resources folder.
    static let resourcesMarker = "Views/layout.mustache"

    /// Why the server could not start with the resources at `path` (after `locateResources`), or nil when it holds
    /// them: a binary copied away from its checkout, with `RESOURCES_PATH` unset, finds none. Checked before the
    /// database is made, and by `siwa doctor`. Found by a black-box review: the start made and migrated the database,
    /// then exited on "Template directory 'Resources/Views' not found", and doctor said all was well.
    package static func resourcesProblem(at path: String) -> ConfigurationError? {
        guard !FileManager.default.fileExists(atPath: path + "/" + resourcesMarker) else { return nil }
        return .malformed(name: "RESOURCES_PATH", expected: "set to a folder holding Views/ and Public/ (none in "
            + "\(path), beside the binary, or in the checkout it was built from: copy the checkout's Resources/ "
            + "next to the binary and point RESOURCES_PATH at it)")
    }

    /// `path` if it holds `Views/`, else the `Resources` folder beside the executable's build folder or the
    /// source tree, so `siwa` works when started from another directory.
    package static func locateResources(_ path: String) -> String {
        let candidates = [
            path,
            URL(fileURLWithPath: CommandLine.arguments.first ?? ".").resolvingSymlinksInPath()
                .deletingLastPathComponent().appendingPathComponent("../../../Resources").standardized.path,
            URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../Resources").standardized.path,
        ]
        return candidates.first { FileManager.default.fileExists(atPath: $0 + "/" + resourcesMarker) } ?? path
    }
}
