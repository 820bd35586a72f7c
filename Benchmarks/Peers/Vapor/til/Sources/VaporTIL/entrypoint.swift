import Fluent
import FluentPostgresDriver
import FluentSQLiteDriver
import JWT
import SQLKit
import Vapor

/// Environment: PORT, DATABASE_PATH (SQLite) or DATABASE_URL and DATABASE_POOL_SIZE (PostgreSQL, connections per
/// event loop), APPLE_JWKS_URL, IOS_APPLICATION_IDENTIFIER, LOG_LEVEL; for the code exchange APPLE_BASE_URL,
/// APPLE_TEAM_ID, APPLE_KEY_ID, APPLE_PRIVATE_KEY_PATH and APPLE_HTTP_POOL (`req.client`'s connections per host,
/// default 64; AsyncHTTPClient's own default is 8).
@main
enum Entrypoint {
    static func main() async throws {
        var env = try Environment.detect()
        try LoggingSystem.bootstrap(from: &env)
        let app = try await Application.make(env)
        do {
            try await configure(app)
            try await app.execute()
        } catch {
            app.logger.report(error: error)
            try? await app.asyncShutdown()
            throw error
        }
        try await app.asyncShutdown()
    }

    static func configure(_ app: Application) async throws {
        let port = Environment.get("PORT").flatMap(Int.init) ?? 8082
        app.http.server.configuration.hostname = "127.0.0.1"
        app.http.server.configuration.port = port
        app.migrations.add(CreateUser())
        app.migrations.add(CreateToken())
        app.migrations.add(CreateAppleToken())
        if let url = Environment.get("DATABASE_URL") {
            let size = Environment.get("DATABASE_POOL_SIZE").flatMap(Int.init) ?? 8
            app.databases.use(try .postgres(url: url, maxConnectionsPerEventLoop: size), as: .psql)
            try await app.autoMigrate()
        } else {
            let path = Environment.get("DATABASE_PATH") ?? "til.sqlite"
            app.databases.use(.sqlite(.file(path)), as: .sqlite)
            try await app.autoMigrate()
            try await useWAL(app)
        }
        if let jwks = Environment.get("APPLE_JWKS_URL") {
            app.jwt.apple.jwksEndpoint = URI(string: jwks)
        }
        let appID = Environment.get("IOS_APPLICATION_IDENTIFIER") ?? "dev.siwa.ios"
        app.jwt.apple.applicationIdentifier = appID
        app.get("health") { _ in "ok" }
        let pool = Environment.get("APPLE_HTTP_POOL").flatMap(Int.init) ?? 64
        app.http.client.configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = pool
        let apple = try await AppleExchange.configure(app, applicationIdentifier: appID)
        try app.register(collection: UsersController(applicationIdentifier: appID, apple: apple))
    }

    /// `journal_mode=WAL` and `synchronous=NORMAL` on every SQLite connection, as siwa runs.
    static func useWAL(_ app: Application) async throws {
        for loop in app.eventLoopGroup.makeIterator() {
            let db = app.databases.database(.sqlite, logger: app.logger, on: loop)
            guard let sql = db as? any SQLDatabase else { continue }
            try await sql.raw("PRAGMA journal_mode=WAL").run()
            try await sql.raw("PRAGMA synchronous=NORMAL").run()
        }
    }
}
