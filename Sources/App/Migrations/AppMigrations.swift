import Storage

/// The schema of siwa-server, as ordered migrations. Dates are INTEGER milliseconds since 1970, UUIDs lowercase
/// TEXT, hashes and encrypted tokens BLOBs (see `DatabaseValueConvertible`).
package enum AppMigrations {
    /// Every migration this build knows, in order.
    package static var migrator: Migrator {
        var migrator = Migrator()
        migrator.register(version: 1, name: "create users and tokens", CreateUsersAndTokens.migrate)
        migrator.register(version: 2, name: "create sessions", CreateSessions.migrate)
        migrator.register(version: 3, name: "create apple tokens", CreateAppleTokens.migrate)
        migrator.register(version: 4, name: "create sign-in support tables", CreateSignInSupport.migrate)
        migrator.register(version: 5, name: "add email forwarding state", AddEmailForwarding.migrate)
        migrator.register(version: 6, name: "key bearer tokens by id", KeyTokensByID.migrate)
        migrator.register(version: 7, name: "drop web-flow states", DropWebFlowStates.migrate)
        migrator.register(version: 8, name: "create used nonces", CreateUsedNonces.migrate)
        return migrator
    }

    /// Opens the database at `path` and applies the migrations it lacks.
    ///
    /// - Throws: `MigrationError` (`.databaseIsNewer`) when the file was migrated by a newer build;
    ///   `SQLiteError` when it cannot be opened.
    package static func openAndMigrate(
        path: String, configuration: DatabaseConfiguration = DatabaseConfiguration()
    ) async throws -> DatabasePool {
        let pool = try DatabasePool(path: path, configuration: configuration)
        try await migrator.migrate(pool)
        return pool
    }
}
