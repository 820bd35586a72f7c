import CLibPQ

/// A libpq connection URI (`postgres://` or `postgresql://`, https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNSTRING-URIS),
/// checked by libpq's own parser, with what may be logged about it: host, port and database, never the password.
package struct PostgresURL: Sendable, Equatable, CustomStringConvertible {
    /// The URI exactly as given; it may carry a password, so it is never printed (`description` leaves it out).
    package let uri: String
    /// The host (a name, an address, or a socket folder such as `/run/postgresql`), libpq's default when unset.
    package let host: String
    /// The port, `5432` when unset.
    package let port: String
    /// The database name, the user's name when unset.
    package let database: String
    /// One set of libpq connection parameters per host when the URI lists several (libpq's multi-host URI), in
    /// order; empty for one host. A connection tries them one after another, each within its own time: libpq
    /// enforces `connect_timeout` only when it blocks, so in non-blocking mode an unanswering first host (a machine
    /// that died and drops packets) would hold every attempt and the later hosts would never be tried.
    package let hostParameters: [[String: String]]
    /// Every connection parameter the URI sets, as libpq parsed it (the password among them: never printed).
    package let parameters: [String: String]
    /// `connect_timeout` of the URI: how long one host may take to connect (libpq's minimum of 2 s applies).
    package let connectTimeout: Duration?

    /// Why a `DATABASE_URL` was refused.
    package struct Invalid: Error, Equatable, CustomStringConvertible {
        package var description: String
    }

    /// Checks `uri`: the scheme must be `postgres` or `postgresql`, and libpq must accept the rest (its query
    /// parameters included: `sslmode`, `sslrootcert`, `host`, `connect_timeout`, ...).
    /// - Throws: `Invalid`, whose text names the problem and never the password.
    package init(_ text: String) throws {
        let scheme = text.prefix { $0 != ":" }.lowercased()
        guard scheme == "postgres" || scheme == "postgresql", text.dropFirst(scheme.count).hasPrefix("://") else {
            throw Invalid(description: "is not one: its scheme is not postgres:// or postgresql://")
        }
        // Schemes are case-insensitive (RFC 3986 §3.1); libpq knows only the lowercase spelling.
        let uri = scheme + text.dropFirst(scheme.count)
        try Self.refuseUnencodedDelimiters(in: uri)
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(uri, &error) else {
            defer { PQfreemem(error) }
            let detail = error.map { String(cString: $0).split(separator: "\n").first.map(String.init) ?? "" } ?? ""
            let redacted = Self.redacting(Self.secrets(in: uri), in: detail)
            throw Invalid(description: "is not a connection URI libpq accepts" + (redacted.isEmpty ? "" : ": \(redacted)"))
        }
        defer { PQconninfoFree(options) }
        var values: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { values[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        // libpq refuses these only when it connects, after a host name was looked up; a typo would then read as a
        // server that does not answer, for the whole wait at start.
        if let ports = values["port"], ports.split(separator: ",").contains(where: { UInt16($0) == nil }) {
            throw Invalid(description: "has a port that is not a number from 1 to 65535")
        }
        if let timeout = values["connect_timeout"], Int(timeout) == nil {
            throw Invalid(description: "has a connect_timeout that is not a whole number of seconds")
        }
        self.uri = uri
        host = values["host"] ?? values["hostaddr"] ?? "localhost"
        port = values["port"] ?? "5432"
        database = values["dbname"] ?? values["user"] ?? ""
        hostParameters = try Self.splitByHost(values)
        parameters = values
        connectTimeout = values["connect_timeout"].flatMap { Int($0) }.flatMap { $0 > 0 ? .seconds(max($0, 2)) : nil }
    }

    /// `parameters` once per host of its `host`/`hostaddr` lists (with the matching `port`, or the one port for
    /// all), or nothing when they name one host. An empty item means libpq's default, so it is left out.
    /// - Throws: `Invalid` when the lists do not pair up as libpq pairs them (one port, or one per host).
    static func splitByHost(_ parameters: [String: String]) throws -> [[String: String]] {
        func list(_ keyword: String) -> [String] {
            parameters[keyword].map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) } ?? []
        }
        let hosts = list("host"), addresses = list("hostaddr"), ports = list("port")
        let count = max(hosts.count, addresses.count, 1)
        if !hosts.isEmpty, !addresses.isEmpty, hosts.count != addresses.count {
            throw Invalid(description: "lists \(hosts.count) hosts and \(addresses.count) hostaddr values; "
                          + "libpq needs one address per host")
        }
        if ports.count > 1, ports.count != count {
            throw Invalid(description: "lists \(count) host\(count == 1 ? "" : "s") and \(ports.count) ports; "
                          + "libpq needs one port for all hosts, or one per host")
        }
        guard count > 1 else { return [] }
        return (0..<count).map { index in
            var one = parameters
            for (keyword, items) in [("host", hosts), ("hostaddr", addresses), ("port", ports)] {
                let item = items.count == 1 ? items[0] : index < items.count ? items[index] : ""
                one[keyword] = item.isEmpty ? nil : item
            }
            return one
        }
    }

    /// Refuses a URI with an `@` after its host: a password (or user name) holding `/`, `?` or `#` unencoded ends
    /// the URI's authority early, and libpq then reads the user name as the host and the password's start as the
    /// port, which every message naming the server would print. Found by a black-box review: passwords made with
    /// `openssl rand -base64` hold `/`. An `@` may stand in a query parameter's value (`user=name@server`), not in
    /// the path, a parameter's name, or a fragment.
    /// Two `@` in the authority (`user:pa@ss@host`) are refused too: libpq splits at the first, and the password's
    /// tail became the host in every message (found by a black-box review).
    static func refuseUnencodedDelimiters(in uri: String) throws {
        let afterScheme = uri.split(separator: "://", maxSplits: 1).dropFirst().first ?? ""
        let authorityEnd = afterScheme.firstIndex(where: { "/?#".contains($0) })
        guard afterScheme[..<(authorityEnd ?? afterScheme.endIndex)].filter({ $0 == "@" }).count <= 1 else {
            throw Invalid(description: "has more than one @ before its host: percent-encode /, ?, # and @ in the user "
                          + "name and password (%2F, %3F, %23 and %40)")
        }
        guard let authorityEnd else { return }
        let rest = afterScheme[authorityEnd...]
        let path = rest.prefix { $0 != "?" && $0 != "#" }
        let query = rest.firstIndex(of: "?").map { rest[rest.index(after: $0)...].prefix { $0 != "#" } } ?? ""
        let fragment = rest.firstIndex(of: "#").map { rest[$0...] } ?? ""
        let inQueryName = query.split(separator: "&").contains { pair in
            pair.firstIndex(of: "@").map { !pair[..<$0].contains("=") } ?? false
        }
        guard path.contains("@") || inQueryName || fragment.contains("@") else { return }
        throw Invalid(description: "has an @ after its host: percent-encode /, ?, # and @ in the user name and "
                      + "password (%2F, %3F, %23 and %40)")
    }

    /// The texts of `uri` that may be a password, as written and decoded: the user information's after its first
    /// `:`, and the values of the `secretKeywords` query parameters. The URI may be malformed, so this reads it
    /// loosely and takes more rather than less: the user information ends at the last `@` before any `?`.
    static func secrets(in uri: String) -> [String] {
        var secrets: [String] = []
        let afterScheme = uri.split(separator: "://", maxSplits: 1).dropFirst().first ?? ""
        let authority = afterScheme.prefix { $0 != "?" }
        if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
            let password = authority[authority.index(after: colon)..<at]
            secrets.append(String(password))
            if let decoded = percentDecoded(password) { secrets.append(decoded) }
        }
        if let query = afterScheme.split(separator: "?", maxSplits: 1).dropFirst().first {
            for parameter in query.split(separator: "&") {
                let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard pair.count == 2, secretKeywords.contains(percentDecoded(pair[0]) ?? String(pair[0])) else {
                    continue
                }
                secrets.append(String(pair[1]))
                if let decoded = percentDecoded(pair[1]) { secrets.append(decoded) }
            }
        }
        return secrets.filter { !$0.isEmpty }
    }

    /// The query parameters whose values are secrets: the server's password, and the passphrase of the client's
    /// key (`sslkey`). libpq decodes a parameter's name as it decodes its value, so the names are compared decoded.
    /// Found by a review: `sslpassword=` was quoted whole in the refusal of a malformed URI.
    static let secretKeywords: Set<String> = ["password", "sslpassword"]

    /// `text` with its `%XX` escapes decoded, or nil when it has none or they do not decode to UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        guard text.contains("%") else { return nil }
        var bytes: [UInt8] = []
        var utf8 = text.utf8[...]
        while let byte = utf8.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            else { return nil }
            bytes.append(value)
            utf8 = utf8.dropFirst(2)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// `message` (libpq's, which quotes the piece of the URI it stumbled on, the whole URI at times) with every
    /// secret replaced by `…`, and every quoted piece that is part of a secret too.
    static func redacting(_ secrets: [String], in message: String) -> String {
        guard !secrets.isEmpty else { return message }
        let pieces = message.split(separator: "\"", omittingEmptySubsequences: false).enumerated().map { index, piece in
            let quoted = index % 2 == 1
            if quoted, piece.count > 1, secrets.contains(where: { $0.contains(piece) }) { return "…" }
            return secrets.reduce(String(piece)) { text, secret in text.replacing(secret, with: "…") }
        }
        return pieces.joined(separator: "\"")
    }

    /// `host:port`, or `host:port,host:port` for several hosts: the servers, as a log line or an error names them.
    package var server: String {
        guard !hostParameters.isEmpty else { return "\(host):\(port)" }
        return hostParameters.map(Self.hostAndPort).joined(separator: ",")
    }

    /// `server/database`: what a log line or an error may say about the database.
    package var description: String { "\(server)/\(database)" }

    /// `host:port` of one host's parameters.
    static func hostAndPort(_ parameters: [String: String]) -> String {
        "\(parameters["host"] ?? parameters["hostaddr"] ?? "localhost"):\(parameters["port"] ?? "5432")"
    }
}
