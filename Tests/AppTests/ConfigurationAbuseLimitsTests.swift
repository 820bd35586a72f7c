import HTTPCore
import Testing
import Web
@testable import App

/// `SIGNIN_RATE_LIMIT`, `SIGNIN_RATE_BURST`, `MAX_CONNECTIONS_PER_IP`: defaults, both ends of their ranges, one past
/// each refused with the variable named.
struct ConfigurationAbuseLimitsTests {
    private func load(_ values: [String: String]) throws -> Configuration {
        try Configuration(Environment(values))
    }

    private func expectRefused(_ name: String, _ value: String) {
        #expect(throws: ConfigurationError.malformed(name: name, expected: "an integer in \(name == "SIGNIN_RATE_BURST" ? 1 : 0)...1000000")) {
            try load([name: value])
        }
    }

    @Test func defaults() throws {
        let configuration = try load([:])
        #expect(configuration.signInRateLimit == 60)
        #expect(configuration.signInRateBurst == 20)
        #expect(configuration.maxConnectionsPerIP == 256)
        #expect(configuration.maxConnectionsPerIP == HTTPLimits.defaultMaxConnectionsPerAddress)
    }

    /// Behind a trusted proxy every peer is the proxy, so the per-address cap is not applied: one client holding
    /// 256 connections made the server refuse the proxy's new ones, and everyone got 502 (found by an audit).
    @Test(arguments: [(false, 256), (true, 0)])
    func theCapPerPeerIsOffBehindATrustedProxy(_ trustProxy: Bool, _ applied: Int) throws {
        let configuration = try load(["TRUST_PROXY": "\(trustProxy)", "MAX_CONNECTIONS_PER_IP": "256"])
        #expect(SiwaServer.httpConfiguration(configuration).limits.maxConnectionsPerAddress == applied)
    }

    @Test func acceptsTheirRanges() throws {
        #expect(try load(["SIGNIN_RATE_LIMIT": "0"]).signInRateLimit == 0)
        #expect(try load(["SIGNIN_RATE_LIMIT": "1000000"]).signInRateLimit == 1_000_000)
        #expect(try load(["SIGNIN_RATE_BURST": "1"]).signInRateBurst == 1)
        #expect(try load(["SIGNIN_RATE_BURST": "1000000"]).signInRateBurst == 1_000_000)
        #expect(try load(["MAX_CONNECTIONS_PER_IP": "0"]).maxConnectionsPerIP == 0)
        #expect(try load(["MAX_CONNECTIONS_PER_IP": "1000000"]).maxConnectionsPerIP == 1_000_000)
    }

    @Test func refusesOutsideTheirRangesNamingTheVariable() {
        expectRefused("SIGNIN_RATE_LIMIT", "-1")
        expectRefused("SIGNIN_RATE_LIMIT", "1000001")
        expectRefused("SIGNIN_RATE_BURST", "0")
        expectRefused("SIGNIN_RATE_BURST", "1000001")
        expectRefused("MAX_CONNECTIONS_PER_IP", "-1")
        expectRefused("MAX_CONNECTIONS_PER_IP", "1000001")
        #expect(throws: ConfigurationError.self) { try load(["SIGNIN_RATE_LIMIT": "fast"]) }
    }

    @Test func zeroTurnsTheSignInLimitOff() throws {
        #expect(SignInRateLimit.middleware(try load(["SIGNIN_RATE_LIMIT": "0"])).isEmpty)
        #expect(SignInRateLimit.middleware(try load([:])).count == 1)
    }
}
