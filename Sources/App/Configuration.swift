import Foundation
import HTTPCore
import Logging
import Storage

/// Everything the server reads from the environment (README "Configuration", `.env.example`), validated once at start.
///
/// Variables come from the process environment, then `.env` in the working directory (environment wins).
/// Optional features (the web flow, the API route, code exchange) are off when their variables are missing;
/// `problems` names what is missing so start-up can say so and the routes can answer "not configured".
package struct Configuration: Sendable {
    package var hostname = "127.0.0.1"
    package var port = 8080
    /// How the messages name `hostname` and `port` when the server cannot listen: the variables, or the options of
    /// `siwa serve` that replaced them (found by a review: `--port` in use was blamed on `PORT`).
    package var listenSettingNames = ListenSettingNames()
    package var databasePath = "siwa.sqlite"
    /// `DATABASE_URL`: PostgreSQL instead of SQLite (then `databasePath` is not used); nil for SQLite.
    package var databaseURL: PostgresURL?
    /// The database for a log line, never a password: `SQLite at PATH` or `PostgreSQL at HOST:PORT/NAME`.
    package var databaseDescription: String {
        databaseURL.map { "PostgreSQL at \($0)" } ?? "SQLite at \(databasePath)"
    }
    /// `DATABASE_POOL_SIZE`: the PostgreSQL connections this instance keeps.
    package var databasePoolSize = PostgresPool.defaultSize
    /// `DATABASE_PREPARED_STATEMENTS`: PostgreSQL statements prepared once per connection (on), or sent unnamed
    /// (off), which a pooler in transaction mode such as PgBouncer can carry.
    package var databasePreparedStatements = true
    /// `DATABASE_SYNCHRONOUS`: `normal` (default) never loses a committed write when the process crashes;
    /// `full` also survives power loss, at the cost of an fsync per commit.
    package var databaseSynchronous: DatabaseConfiguration.Synchronous = .normal
    /// Audiences accepted by `POST /api/users/siwa` (bundle ids).
    package var iosClientIDs: [String] = []
    /// The Services ID: audience of web identity tokens and `clientId` of Apple's button.
    package var websiteClientID: String?
    /// The return URL registered at Apple for the Services ID.
    package var redirectURL: String?
    /// `SIWA_WEB_MODE`: whether the login pages run Apple's button as a redirect (default) or a popup.
    package var webMode: WebMode = .redirect
    /// Where `/auth/keys`, `/auth/token`, `/auth/revoke` and `/auth/authorize` live.
    package var appleBaseURL = Configuration.appleProductionURL
    /// The Sign in with Apple key for code exchange and revocation.
    package var appleKey: AppleKeyConfiguration?
    /// AES-256-GCM key for Apple refresh tokens at rest.
    package var encryptionKey: [UInt8]?
    /// TLS in the server itself (`TLS_CERT_PATH`, `TLS_KEY_PATH`); nil behind a TLS proxy or on loopback.
    package var tls: TLSServerConfiguration?
    package var trustProxy = false
    package var maxBodySize = 1_048_576
    /// Seconds a request body may take to arrive whole after its head, whatever its rate (`BODY_TIMEOUT`); then 408.
    package var bodyTimeoutSeconds = Int(HTTPLimits.defaultBodyTimeout.components.seconds)
    /// Open connections served at once (`MAX_CONNECTIONS`); more wait in the listen backlog. Each one holds a
    /// file descriptor, so the soft `RLIMIT_NOFILE` must allow it.
    package var maxConnections = 16_384
    /// Connections open at once from one client address, IPv6 by /64 (`MAX_CONNECTIONS_PER_IP`); 0 is no cap.
    /// Loopback peers are exempt.
    package var maxConnectionsPerIP = HTTPLimits.defaultMaxConnectionsPerAddress
    /// Seconds requests in flight have to finish once SIGTERM or SIGINT arrives (`SHUTDOWN_GRACE_PERIOD`); the
    /// process exits 0 then, even if some did not. Keep it below the supervisor's wait before SIGKILL.
    package var shutdownGracePeriodSeconds = Int(HTTPServerConfiguration.defaultShutdownGracePeriod.components.seconds)
    /// Sustained sign-ins per minute per client address (`SIGNIN_RATE_LIMIT`); 0 turns the limit off.
    package var signInRateLimit = 60
    /// Sign-ins one address may make at once after a quiet spell (`SIGNIN_RATE_BURST`).
    package var signInRateBurst = 20
    /// SQLite page cache per connection in KiB (`DATABASE_CACHE_KIB`). Ids are time-ordered, so the pages a
    /// sign-in touches are mostly the newest ones and a small cache keeps them.
    package var databaseCacheKiB = 2_048
    /// How long a write waits for a lock held by another process before the request gets a 503
    /// (`DATABASE_BUSY_TIMEOUT_MS`).
    package var databaseBusyTimeoutMilliseconds = DatabaseConfiguration.defaultBusyTimeoutMilliseconds
    package var logLevel: Logger.Level = .info
    /// `METRICS_TOKEN`: when set, `GET /metrics` answers requests bearing it; when nil, `/metrics` is a 404.
    package var metricsToken: String?
    /// Folder with `Views/` and `Public/`.
    package var resourcesPath = "Resources"
    /// `SSL_CERT_FILE`, from the environment or `.env`: the trust store for outgoing HTTPS. OpenSSL reads it from
    /// the process environment only, so a value in `.env` is passed to the client explicitly.
    package var trustStoreFile: String?
    /// A CA file trusted for outgoing HTTPS in addition to the trust store (`SIWA_EXTRA_CA_FILE`).
    package var extraCAFile: String?
    /// `APPLE_MAX_CONNECTIONS`: the most connections to Apple this process holds; requests beyond wait in order.
    package var appleMaxConnections = HTTPClient.Configuration.defaultMaxConnectionsPerOrigin
    /// `APPLE_TIMEOUT`: how long one call to Apple may take in all, waiting for a connection included.
    package var appleTimeout: Duration = Configuration.defaultAppleTimeout
    package static let defaultAppleTimeout: Duration = .seconds(10)
    /// `APPLE_CHORES_INTERVAL`, in seconds: how often `siwa serve` runs Apple's chores; 0 is off, nil the default
    /// (`appleChoresEvery`).
    package var appleChoresInterval: TimeInterval?
    /// The largest `APPLE_TIMEOUT` accepted, in seconds.
    package static let maxAppleTimeoutSeconds = 300.0
    /// The shortest `APPLE_TIMEOUT`: it is kept in whole milliseconds, and less would round to no time at all (every
    /// call to Apple failing at once). Found by a review: 0.0004 was taken as 0 ms.
    package static let minAppleTimeoutSeconds = 0.001

    package static let appleProductionURL = "https://appleid.apple.com"

    package struct AppleKeyConfiguration: Sendable, Equatable {
        package var teamID, keyID, privateKeyPath: String
        package init(teamID: String, keyID: String, privateKeyPath: String) {
            self.teamID = teamID
            self.keyID = keyID
            self.privateKeyPath = privateKeyPath
        }
    }

    package init() {}

    /// Whether the web flow's variables are set.
    package var isWebFlowConfigured: Bool { websiteClientID != nil && redirectURL != nil }

    /// The variables `.env` sets more than once, with their lines (`Environment.repeatedInDotEnv`).
    package var repeatedInDotEnv: [String: [Int]] = [:]

    /// What is off and why, for the start-up log.
    package var problems: [String] {
        var problems: [String] = []
        for (name, lines) in repeatedInDotEnv.sorted(by: { $0.key < $1.key }) {
            problems.append(".env sets \(name) on lines \(lines.map(String.init).joined(separator: ", ")): "
                + "the last one counts.")
        }
        if iosClientIDs.isEmpty {
            problems.append("IOS_APPLICATION_IDENTIFIER is not set: POST /api/users/siwa answers 503 until it is.")
        }
        if websiteClientID == nil {
            problems.append("WEBSITE_APPLICATION_IDENTIFIER is not set: the web sign-in routes answer 503 until it is.")
        }
        if redirectURL == nil {
            problems.append("SIWA_REDIRECT_URL is not set: the web sign-in routes answer 503 until it is.")
        }
        if appleKey == nil {
            problems.append(
                "APPLE_TEAM_ID, APPLE_KEY_ID and APPLE_PRIVATE_KEY_PATH are not set: "
                    + "authorization-code exchange and token revocation are off"
                    + (appleChoresInterval ?? 0 > 0 ? ", and so are the chores APPLE_CHORES_INTERVAL asks for." : ".")
            )
        }
        return problems
    }
}

/// The names of the settings that give the listen address, as messages say them.
package struct ListenSettingNames: Sendable, Equatable {
    /// `HOSTNAME`, or `--hostname` when the option gave it.
    package var hostname = "HOSTNAME"
    /// `PORT`, or `--port` when the option gave it.
    package var port = "PORT"

    package init() {}
}
