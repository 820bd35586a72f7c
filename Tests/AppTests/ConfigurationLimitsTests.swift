import Testing
import Web
@testable import App

/// `MAX_CONNECTIONS`, `DATABASE_CACHE_KIB`, `SHUTDOWN_GRACE_PERIOD` and `BODY_TIMEOUT`: defaults, both ends of their
/// ranges accepted, one past each refused.
struct ConfigurationLimitsTests {
    private func load(_ values: [String: String]) throws -> Configuration {
        try Configuration(Environment(values))
    }

    @Test func maxConnectionsDefaultsAbove10000() throws {
        #expect(try load([:]).maxConnections == 16_384)
    }

    @Test func maxConnectionsAcceptsItsRange() throws {
        #expect(try load(["MAX_CONNECTIONS": "1"]).maxConnections == 1)
        #expect(try load(["MAX_CONNECTIONS": "1000000"]).maxConnections == 1_000_000)
    }

    @Test func maxConnectionsRefusesOutsideItsRange() {
        #expect(throws: ConfigurationError.self) { try load(["MAX_CONNECTIONS": "0"]) }
        #expect(throws: ConfigurationError.self) { try load(["MAX_CONNECTIONS": "1000001"]) }
        #expect(throws: ConfigurationError.self) { try load(["MAX_CONNECTIONS": "many"]) }
    }

    @Test func databaseCacheDefaultsTo2MiB() throws {
        #expect(try load([:]).databaseCacheKiB == 2_048)
    }

    @Test func databaseCacheAcceptsItsRange() throws {
        #expect(try load(["DATABASE_CACHE_KIB": "64"]).databaseCacheKiB == 64)
        #expect(try load(["DATABASE_CACHE_KIB": "1048576"]).databaseCacheKiB == 1_048_576)
    }

    @Test func databaseCacheRefusesOutsideItsRange() {
        #expect(throws: ConfigurationError.self) { try load(["DATABASE_CACHE_KIB": "63"]) }
        #expect(throws: ConfigurationError.self) { try load(["DATABASE_CACHE_KIB": "1048577"]) }
    }

    @Test func shutdownGracePeriodDefaultsTo10Seconds() throws {
        #expect(try load([:]).shutdownGracePeriodSeconds == 10)
    }

    @Test func shutdownGracePeriodAcceptsItsRange() throws {
        #expect(try load(["SHUTDOWN_GRACE_PERIOD": "0"]).shutdownGracePeriodSeconds == 0)
        #expect(try load(["SHUTDOWN_GRACE_PERIOD": "3600"]).shutdownGracePeriodSeconds == 3_600)
    }

    @Test func shutdownGracePeriodRefusesOutsideItsRange() {
        #expect(throws: ConfigurationError.self) { try load(["SHUTDOWN_GRACE_PERIOD": "-1"]) }
        #expect(throws: ConfigurationError.self) { try load(["SHUTDOWN_GRACE_PERIOD": "3601"]) }
        #expect(throws: ConfigurationError.self) { try load(["SHUTDOWN_GRACE_PERIOD": "10s"]) }
    }

    @Test func bodyTimeoutDefaultsTo60SecondsAndReachesTheServer() async throws {
        #expect(try load([:]).bodyTimeoutSeconds == 60)
        try await TestApp.with(configure: { configuration in configuration.bodyTimeoutSeconds = 7 }) { app in
            #expect(app.server.server.configuration.limits.bodyTimeout == .seconds(7))
            // Whatever the body's rate: neither a pause limit nor a minimum rate cuts it before BODY_TIMEOUT.
            #expect(app.server.server.configuration.limits.bodyReadTimeout == .seconds(7))
            #expect(app.server.server.configuration.limits.minimumBodyRate == 0)
        }
    }

    @Test func bodyTimeoutAcceptsItsRange() throws {
        #expect(try load(["BODY_TIMEOUT": "1"]).bodyTimeoutSeconds == 1)
        #expect(try load(["BODY_TIMEOUT": "3600"]).bodyTimeoutSeconds == 3_600)
    }

    @Test func bodyTimeoutRefusesOutsideItsRange() {
        #expect(throws: ConfigurationError.self) { try load(["BODY_TIMEOUT": "0"]) }
        #expect(throws: ConfigurationError.self) { try load(["BODY_TIMEOUT": "3601"]) }
        #expect(throws: ConfigurationError.self) { try load(["BODY_TIMEOUT": "60s"]) }
    }
}
