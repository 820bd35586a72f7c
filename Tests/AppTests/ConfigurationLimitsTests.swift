import Testing
import Web
@testable import App

/// `MAX_CONNECTIONS`: default, both ends of its range accepted, one past each refused.
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
}
