import Testing
import Web
@testable import App

/// The settings that must agree across instances on PostgreSQL, and `DATABASE_PREPARED_STATEMENTS`.
struct ConfigurationPostgresTests {
    static let url = "postgres://siwa@db.example:5432/siwa"
    static let appleKey = ["APPLE_TEAM_ID": "ABCDE12345", "APPLE_KEY_ID": "XYZ987WVU6",
                           "APPLE_PRIVATE_KEY_PATH": "/etc/siwa/key.p8"]

    func load(_ values: [String: String]) throws -> Configuration {
        try Configuration(Environment(values))
    }

    @Test func postgresWithTheAppleKeyNeedsASharedEncryptionKey() throws {
        let error = #expect(throws: ConfigurationError.self) {
            try load(Self.appleKey.merging(["DATABASE_URL": Self.url]) { $1 })
        }
        #expect(error?.description.contains("SIWA_ENCRYPTION_KEY") == true)
        let key = String(repeating: "ab", count: 32)
        #expect(try load(Self.appleKey.merging(["DATABASE_URL": Self.url, "SIWA_ENCRYPTION_KEY": key]) { $1 })
            .encryptionKey?.count == 32)
        #expect(try load(["DATABASE_URL": Self.url]).encryptionKey == nil, "without the Apple key nothing is sealed")
        #expect(try load(Self.appleKey).encryptionKey == nil, "SQLite keeps a key file of its own")
    }

    @Test func preparedStatementsAreOnUnlessTurnedOff() throws {
        #expect(try load([:]).databasePreparedStatements)
        for value in ["on", "true", "1", "ON"] {
            #expect(try load(["DATABASE_PREPARED_STATEMENTS": value]).databasePreparedStatements)
        }
        for value in ["off", "false", "0", "Off"] {
            #expect(try !load(["DATABASE_PREPARED_STATEMENTS": value]).databasePreparedStatements)
        }
        #expect(throws: ConfigurationError.self) { try load(["DATABASE_PREPARED_STATEMENTS": "sometimes"]) }
    }
}
