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
    package init(_ uri: String) throws {
        let scheme = uri.prefix { $0 != ":" }.lowercased()
        guard scheme == "postgres" || scheme == "postgresql", uri.dropFirst(scheme.count).hasPrefix("://") else {
            throw Invalid(description: "must be a postgres:// or postgresql:// URI")
        }
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(uri, &error) else {
            defer { PQfreemem(error) }
            let detail = error.map { String(cString: $0).split(separator: "\n").first.map(String.init) ?? "" } ?? ""
            throw Invalid(description: "is not a connection URI libpq accepts" + (detail.isEmpty ? "" : ": \(detail)"))
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

    /// `host:port/database`: what a log line or an error may say about the server.
    package var description: String { "\(host):\(port)/\(database)" }
}
