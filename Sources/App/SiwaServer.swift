import AppleID
import Foundation
import HTTPCore
import IOCore
import Logging
import Storage
import Synchronization
import Web

/// The siwa server: configuration, database, Apple's keys, routes and the HTTP server, wired together.
///
/// ```swift
/// let server = try await SiwaServer(configuration: try Configuration.load())
/// try server.start()
/// try await server.run()
/// ```
package final class SiwaServer: Sendable {
    package let configuration: Configuration
    let services: Services
    let application: Application
    let server: HTTPServer
    /// The loops that every socket of this server waits on: HTTP, PostgreSQL and Apple.
    let loops: EventLoopGroup
    let housekeeping: Task<Void, Never>
    /// The schedule of Apple's chores (`APPLE_CHORES_INTERVAL`), when on.
    let chores: Task<Void, Never>?
    /// The one shutdown, once begun: `shutdown()` and the end of `run()` both wait for it.
    private let stopping = Mutex<Task<Void, Never>?>(nil)

    /// Opens and migrates the database, checks that the refresh-token key opens the tokens it holds, seeds Apple's
    /// keys from the last good copy, and registers the routes.
    /// - Throws: `RefreshTokenKeyCheck.Refusal` when a SQLite database holds sealed refresh tokens and the key is
    ///   missing or another; what opening the database throws.
    /// - Parameters:
    ///   - configuration: What `Configuration.load` read.
    ///   - logger: The server's logger.
    ///   - clock: The clock tokens are judged by (tests move it).
    package init(configuration: Configuration, logger: Logger = Logger(label: "siwa"),
                clock: @escaping @Sendable () -> Date = Date.init) async throws {
        self.configuration = configuration
        let loops = try EventLoopGroup()
        self.loops = loops
        // A start refused anywhere here (database down, another key, a template that does not parse) closes what it
        // opened and leaves no loop threads behind.
        var opened: (any DatabaseClient)?
        do {
            let database = try await AppMigrations.openAndMigrate(configuration, logger: logger, group: loops)
            opened = database
            try await RefreshTokenKeyCheck.check(configuration, database: database)
            let http = HTTPClient(configuration: configuration.appleClientConfiguration, group: loops)
            let appleKeys = AppleKeySet.apple(configuration: configuration, database: database, client: http,
                                              logger: logger, clock: clock)
            services = Services(configuration: configuration, database: database, appleKeys: appleKeys, http: http,
                                logger: logger, clock: clock)
            application = Application(trustProxy: configuration.trustProxy, logger: logger)
            application.collectsMetrics = configuration.metricsToken != nil
            application.views = try ViewRenderer(directory: configuration.resourcesPath + "/Views")
            try routes(application, services: services)
            try application.boot()
        } catch {
            await opened?.close()
            loops.shutdown()
            throw error
        }
        server = HTTPServer(configuration: Self.httpConfiguration(configuration), responder: application, logger: logger, group: loops)
        services.metrics.attach(server)
        housekeeping = Task { [services] in await Housekeeping(services: services).run() }
        chores = Self.scheduleChores(services, loop: loops.next())
    }

    /// The HTTP server's settings from the configuration: address, TLS, limits and the headers of refusals.
    static func httpConfiguration(_ configuration: Configuration) -> HTTPServerConfiguration {
        var serverConfiguration = HTTPServerConfiguration(hostname: configuration.hostname, port: configuration.port,
                                                          accessLog: false)
        serverConfiguration.limits.maxBodySize = configuration.maxBodySize
        // BODY_TIMEOUT bounds a body whatever its rate: no pause limit or minimum rate of its own cuts it sooner
        // (found by two audits: a body that paused 25 s was a 408 after 20 s with the default of 60).
        serverConfiguration.limits.bodyTimeout = .seconds(configuration.bodyTimeoutSeconds)
        serverConfiguration.limits.bodyReadTimeout = .seconds(configuration.bodyTimeoutSeconds)
        serverConfiguration.limits.minimumBodyRate = 0
        serverConfiguration.limits.maxConnections = configuration.maxConnections
        // Behind a trusted proxy every connection comes from the proxy, so a cap per peer would count all its
        // clients as one: one client holding 256 connections made the server refuse the proxy's new ones, and every
        // user got 502 (found by an audit). The client is known only from X-Forwarded-For, after the connection is
        // taken; the proxy caps connections per client (nginx `limit_conn`, deploy/nginx/production.conf).
        serverConfiguration.limits.maxConnectionsPerAddress = configuration.trustProxy ? 0 : configuration.maxConnectionsPerIP
        serverConfiguration.shutdownGracePeriod = .seconds(configuration.shutdownGracePeriodSeconds)
        serverConfiguration.errorHeaders = SecurityHeadersMiddleware.Configuration().headers(secure: configuration.tls != nil)
        serverConfiguration.tls = configuration.tls
        return serverConfiguration
    }

    /// Starts listening; returns once the socket is bound.
    package func start() throws {
        try server.start()
        SignInRateLimit.logNotice(configuration, logger: services.logger)
        if configuration.trustProxy, configuration.maxConnectionsPerIP > 0 {
            services.logger.notice("""
                MAX_CONNECTIONS_PER_IP is not applied with TRUST_PROXY: every connection comes from the proxy, which \
                would count as one client; cap connections per client at the proxy (nginx limit_conn)
                """)
        }
    }
    /// The bound port (useful with port 0).
    package var localPort: Int { server.localPort }
    /// Serves until `shutdown()`, and returns once it is complete (the database closed), so that a process that
    /// exits when this returns leaves its database whole.
    package func run() async throws {
        try await server.run()
        await shutdown()
    }
    /// Marks the instance draining (`/ready` answers 503), closes the listener, lets requests in flight finish
    /// for up to `SHUTDOWN_GRACE_PERIOD` seconds, stops the loops, housekeeping and the chores, closes the database
    /// (SQLite: checkpointed and closed, no `-wal` or `-shm` file left), and returns. Every call waits for
    /// the same one shutdown.
    package func shutdown() async {
        let task = stopping.withLock { stopping -> Task<Void, Never> in
            if let task = stopping { return task }
            let task = Task { [self] in await stop() }
            stopping = task
            return task
        }
        await task.value
    }

    private func stop() async {
        let graceEnd = ContinuousClock.now + .seconds(services.configuration.shutdownGracePeriodSeconds)
        services.readiness.beginDraining()
        housekeeping.cancel()
        chores?.cancel()
        await server.shutdown()
        // A cancelled chore finishes the calls to Apple in flight and stores their answers, hands its other tokens
        // back and releases its lease: on PostgreSQL all of it waits on the loops, so they run until it is done.
        // Found by a black-box review: with the loops stopped first, a SIGTERM on PostgreSQL lost the answers in
        // flight ("16 failed (database: 16)"), left tokens claimed and the lease held. A chore's calls to Apple do
        // not see its cancellation, though: past the grace period the client to Apple is stopped, which ends them
        // (their tokens handed back, due again) while the loops still serve the database, so that a run waiting on a
        // hanging Apple holds the exit neither until `APPLE_TIMEOUT` (found by a black-box review: the exit came
        // 13 s after SIGTERM, the grace 2 s) nor leaves its tokens claimed (found by a re-review). Stopping the
        // loops then ends whatever is left.
        if let chores,
           await EventLoop.answer(within: max(graceEnd - ContinuousClock.now, .zero), { await chores.value }) == nil {
            services.lifecycle.client?.http.stop()
            _ = await EventLoop.answer(within: Self.choreWindUp) { await chores.value }
        }
        loops.shutdown()
        await chores?.value
        await housekeeping.value
        await services.database.close()
    }

    /// How long a stop waits, past the grace period, for a chore whose calls to Apple it ended to hand its tokens back
    /// and release its lease.
    static let choreWindUp: Duration = .seconds(2)

    /// Starts the schedule of Apple's chores when `APPLE_CHORES_INTERVAL` and the lifecycle are on.
    private static func scheduleChores(_ services: Services, loop: EventLoop) -> Task<Void, Never>? {
        guard let interval = services.configuration.appleChoresEvery, services.lifecycle.isEnabled else { return nil }
        let schedule = ChoreSchedule(lifecycle: services.lifecycle, lease: ChoreLease(pool: services.database),
                                     interval: interval, counters: services.metrics.chores, loop: loop,
                                     logger: services.logger, clock: services.clock)
        return Task { await schedule.run() }
    }

    /// `siwa serve`: logs what is off, serves until SIGINT or SIGTERM, then exits cleanly; with built-in TLS, SIGHUP
    /// reads the certificate's files again (`TLSFilesReload`).
    package static func runUntilSignalled(configuration: Configuration) async throws {
        var logger = Logger(label: "siwa")
        logger.logLevel = configuration.logLevel
        for problem in configuration.problems { logger.warning("\(problem)") }
        for refused in IdentifierCheck(configuration: configuration).refusedValues() {
            logger.warning("\(refused.subject): \(refused.message)")
        }
        // Past `ulimit -f` a write must fail with EFBIG (SQLite: SQLITE_FULL, a 503), not kill the server.
        signal(SIGXFSZ, SIG_IGN)
        // Before the hold's listener (which serves with these files too) and before any database is made.
        if let expiry = try TLSFilesCheck.check(configuration) { logger.warning("\(expiry.message)") }
        let (reload, reloadSignals) = TLSFilesReload.install(configuration, logger: logger)
        defer { for source in reloadSignals { source.cancel() } }
        try AppleKeyFileCheck.check(configuration)
        if let problem = Configuration.resourcesProblem(at: configuration.resourcesPath) { throw problem }
        try checkListenAddress(configuration)
        guard try await ReadOnlyStartHold(configuration: configuration, logger: logger).waitForWritable() else {
            logger.notice("stopped while starting")
            return
        }
        // SIGINT or SIGTERM while the server gets ready (up to 30 s waiting for PostgreSQL) ends the start cleanly,
        // exit 0, as it would end the server: the wait is cancelled, or the server, once made, is not started.
        let stopped = Atomic<Bool>(false)
        let starting = Task { try await SiwaServer(configuration: configuration, logger: logger) }
        let early = ShutdownSignals.install {
            stopped.store(true, ordering: .relaxed)
            starting.cancel()
        }
        let made = await starting.result
        for source in early { source.cancel() }
        if stopped.load(ordering: .relaxed) {
            logger.notice("stopped while starting")
            if case .success(let server) = made { await server.shutdown() }
            return
        }
        let server = try made.get()
        reload.serve(server.server)
        do {
            try server.start()
        } catch {
            // What was made is closed first (the database checkpointed, its -wal and -shm gone). Found by a review:
            // a port taken after the check but before the listen left them behind.
            await server.shutdown()
            if let error = error as? SocketError { throw listenError(error, configuration) }
            throw error
        }
        let signals = ShutdownSignals.install(logger: logger) { await server.shutdown() }
        let scheme = configuration.tls == nil ? "http" : "https"
        let host = Configuration.urlHost(configuration.hostname)
        logger.notice("database: \(configuration.databaseDescription)")
        logger.notice("siwa listening on \(scheme)://\(host):\(server.localPort)")
        try await server.run()
        withExtendedLifetime(signals) {}
    }

    /// Fails the start before anything is made (a database, its key) when the server could not listen: a
    /// `HOSTNAME` that does not resolve, a `PORT` in use. Found by an audit: such a start left a new database behind.
    private static func checkListenAddress(_ configuration: Configuration) throws {
        do {
            try HTTPServer.checkAddress(hostname: configuration.hostname, port: configuration.port)
        } catch let error as SocketError {
            throw listenError(error, configuration)
        }
    }

    /// `HOSTNAME` is not an address or a name of this machine: `error` is why it could not be listened on.
    static func hostnameProblem(_ error: any Error) -> ConfigurationError {
        .malformed(name: "HOSTNAME", expected: hostnameExpectation(error))
    }

    private static func hostnameExpectation(_ error: any Error) -> String {
        "an address or a name of this machine to listen on (\(error))"
    }

    /// What `siwa serve` says when it cannot listen, naming the variable or the option to change.
    private static func listenError(_ error: SocketError, _ configuration: Configuration) -> Error {
        let names = configuration.listenSettingNames
        // EADDRNOTAVAIL: no interface of this machine has that address (found by a review: it was blamed on PORT).
        if error.call.hasPrefix("getaddrinfo(") || (error.call.hasPrefix("bind(") && error.code == EADDRNOTAVAIL) {
            return listenSettingProblem(names.hostname, expected: hostnameExpectation(error))
        }
        if error.call.hasPrefix("bind(") {
            return listenSettingProblem(names.port, expected: "a port free on \(configuration.hostname) (\(error)), "
                                        + "or \(names.hostname) an address of this machine")
        }
        return error
    }

    /// A listen setting that cannot be used: as a variable's problem, or an option's (`--port must be …`).
    private static func listenSettingProblem(_ name: String, expected: String) -> Error {
        guard name.hasPrefix("--") else { return ConfigurationError.malformed(name: name, expected: expected) }
        return OperatorError("\(name) must be \(expected)")
    }
    /// `siwa migrate`: applies pending migrations to the configured database (PostgreSQL when `DATABASE_URL` is
    /// set, else the SQLite file); returns the versions applied. A SQLite file that no server has open is closed as at
    /// a clean stop, its WAL checkpointed into it, so that it is one self-contained file again (README "Backup and
    /// restore").
    package static func migrate(_ configuration: Configuration) async throws -> [Int] {
        guard let url = configuration.databaseURL else {
            var settings = DatabaseConfiguration()
            settings.leaveAsFound(configuration.databasePath)
            let pool = try AppMigrations.open(path: configuration.databasePath, configuration: settings)
            do {
                let applied = try await AppMigrations.migrator.migrate(pool)
                await pool.close()
                return applied
            } catch {
                await pool.close()
                throw error
            }
        }
        let pool = try PostgresPool(url: url, size: 1, preparedStatements: configuration.databasePreparedStatements)
        try await pool.waitUntilAvailable(timeout: AppMigrations.postgresStartupTimeout)
        try await AppMigrations.refuseAnotherApplicationsDatabase(pool, url: url)
        var logger = Logger(label: "siwa.migrate")
        logger.logLevel = configuration.logLevel
        return try await AppMigrations.migrate(pool, logger: logger)
    }

    /// `siwa routes`: the route table of a fully configured server (built on a throw-away database), `/metrics`
    /// included, and the static files it serves (`GET`), one `METHOD /path` a line, by path.
    package static func routeTable(resourcesPath: String) async throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("siwa-routes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = Configuration()
        configuration.databasePath = directory.appendingPathComponent("routes.sqlite").path
        configuration.iosClientIDs = ["routes"]
        configuration.websiteClientID = "routes"
        configuration.redirectURL = "https://example.com/login/siwa/callback"
        configuration.appleBaseURL = "http://127.0.0.1:9"
        configuration.metricsToken = String(repeating: "0", count: 32)
        configuration.resourcesPath = resourcesPath
        var quiet = Logger(label: "siwa")
        quiet.logLevel = .error  // the throw-away database's migration is nobody's news
        let server = try await SiwaServer(configuration: configuration, logger: quiet)
        let routes = try server.application.routesDescription().split(separator: "\n").map(String.init)
        let files = try staticFiles(in: configuration.resourcesPath + "/Public").map { "GET " + $0 }
        func path(_ line: String) -> Substring { line.split(separator: " ", maxSplits: 1).last ?? "" }
        return (routes + files).sorted { (path($0), $0) < (path($1), $1) }.joined(separator: "\n")
    }

    /// The paths the file middleware serves from `folder`: its files below it, hidden ones left out as it leaves
    /// them out. Found by an audit: `siwa routes` did not list them, though `openapi.yaml` documents them.
    static func staticFiles(in folder: String) throws -> [String] {
        try FileManager.default.subpathsOfDirectory(atPath: folder).filter { subpath in
            var isDirectory: ObjCBool = false
            return !subpath.split(separator: "/").contains { $0.hasPrefix(".") }
                && FileManager.default.fileExists(atPath: folder + "/" + subpath, isDirectory: &isDirectory)
                && !isDirectory.boolValue
        }.map { "/" + $0 }
    }
}
