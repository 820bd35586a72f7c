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
            throw Invalid(description: "must be a postgres:// or postgresql:// URI")
        }
        // Schemes are case-insensitive (RFC 3986 §3.1); libpq knows only the lowercase spelling.
        let uri = scheme + text.dropFirst(scheme.count)
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
        self.uri = uri
        host = values["host"] ?? values["hostaddr"] ?? "localhost"
        port = values["port"] ?? "5432"
        database = values["dbname"] ?? values["user"] ?? ""
    }

    /// The texts of `uri` that may be a password, as written: the user information's after its first `:`, and the
    /// values of `password=` query parameters. The URI may be malformed, so this reads it loosely and takes more
    /// rather than less: the user information ends at the last `@` before any `?`.
    static func secrets(in uri: String) -> [String] {
        var secrets: [String] = []
        let afterScheme = uri.split(separator: "://", maxSplits: 1).dropFirst().first ?? ""
        let authority = afterScheme.prefix { $0 != "?" }
        if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
            secrets.append(String(authority[authority.index(after: colon)..<at]))
        }
        if let query = afterScheme.split(separator: "?", maxSplits: 1).dropFirst().first {
            for parameter in query.split(separator: "&") where parameter.hasPrefix("password=") {
                secrets.append(String(parameter.dropFirst("password=".count)))
            }
        }
        return secrets.filter { !$0.isEmpty }
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

    /// `host:port/database`: what a log line or an error may say about the server.
    package var description: String { "\(host):\(port)/\(database)" }
}
