/// Why migrations cannot run.
package struct MigrationError: Error, Equatable, CustomStringConvertible {
    package enum Reason: Equatable, Sendable {
        /// The database records migrations this build does not know: it was written by a newer version.
        case databaseIsNewer(unknown: [Int])
    }

    package var reason: Reason
    /// The database file.
    package var path: String

    package var description: String {
        switch reason {
        case .databaseIsNewer(let unknown):
            let versions = unknown.map(String.init).joined(separator: ", ")
            return "The database \(path) has migration(s) \(versions) that this build does not know: "
                + "it was written by a newer version of siwa. Refusing to use it; upgrade siwa, or, to "
                + "roll back an upgrade, restore the backup taken before it."
        }
    }
}
