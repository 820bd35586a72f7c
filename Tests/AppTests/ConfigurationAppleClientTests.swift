import HTTPCore
import Testing
import Web
@testable import App

/// `APPLE_MAX_CONNECTIONS` and `APPLE_TIMEOUT`: defaults, the ends of their ranges, one past each, and the client
/// they configure.
struct ConfigurationAppleClientTests {
    func load(_ values: [String: String]) throws -> Configuration {
        try Configuration(Environment(values))
    }

    @Test func defaultsAre16ConnectionsAnd10Seconds() throws {
        let configuration = try load([:])
        #expect(configuration.appleMaxConnections == 16)
        #expect(configuration.appleTimeout == .seconds(10))
        #expect(configuration.appleClientConfiguration.maxConnectionsPerOrigin == 16)
        #expect(configuration.appleClientConfiguration.timeout == .seconds(10))
        #expect(configuration.appleClientConfiguration.connectTimeout == .seconds(5))
    }

    @Test func maxConnectionsAcceptsItsRange() throws {
        #expect(try load(["APPLE_MAX_CONNECTIONS": "1"]).appleMaxConnections == 1)
        #expect(try load(["APPLE_MAX_CONNECTIONS": "10000"]).appleClientConfiguration.maxConnectionsPerOrigin == 10_000)
    }

    @Test(arguments: ["0", "10001", "-1", "many"])
    func maxConnectionsRefusesOutsideItsRange(_ value: String) {
        #expect(throws: ConfigurationError.self) { try load(["APPLE_MAX_CONNECTIONS": value]) }
    }

    @Test func timeoutAcceptsSecondsWithAFraction() throws {
        #expect(try load(["APPLE_TIMEOUT": "0.001"]).appleTimeout == .milliseconds(1))
        #expect(try load(["APPLE_TIMEOUT": "2.5"]).appleTimeout == .milliseconds(2_500))
        let longest = try load(["APPLE_TIMEOUT": "300"])
        #expect(longest.appleTimeout == .seconds(300))
        #expect(longest.appleClientConfiguration.connectTimeout == .seconds(5), "connecting is bounded apart")
        #expect(try load(["APPLE_TIMEOUT": "1"]).appleClientConfiguration.connectTimeout == .seconds(1),
                "and never past the whole call's bound")
    }

    @Test(arguments: ["0", "-1", "300.5", "ten", "0.0009", "0.0004"])
    func timeoutRefusesOutsideItsRange(_ value: String) {
        #expect(throws: ConfigurationError.self) { try load(["APPLE_TIMEOUT": value]) }
    }
}
