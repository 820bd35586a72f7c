import Foundation
import Storage
import Synchronization
@testable import App

/// A migrated database in its own temp directory, removed when released: one per test.
final class TemporaryDatabase: Sendable {
    let directory: URL
    let pool: DatabasePool

    var path: String { directory.appendingPathComponent("siwa.sqlite").path }

    /// A fresh directory with a database migrated to `version` (all migrations when nil).
    init(migratedTo version: Int? = nil) async throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("siwa-app-tests-\(UUID().uuidString.lowercased())", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        pool = try DatabasePool(path: directory.appendingPathComponent("siwa.sqlite").path)
        try await AppMigrations.migrator.migrate(pool, upTo: version)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}

/// A settable clock for expiry tests.
final class TestClock: Sendable {
    private let current: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) { current = Mutex(start) }

    var now: Date { current.withLock { $0 } }
    func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    var closure: @Sendable () -> Date { { [self] in now } }
}
