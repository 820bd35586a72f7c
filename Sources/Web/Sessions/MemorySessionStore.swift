import Foundation

/// Sessions in memory, for tests and development: lost at restart, not shared between processes.
package actor MemorySessionStore: SessionStore {
    private var records: [String: SessionRecord] = [:]
    private let now: @Sendable () -> Date

    /// - Parameter now: The clock deciding expiry, injected for tests.
    package init(now: @escaping @Sendable () -> Date = { Date() }) {
        self.now = now
    }

    package func load(id: String) -> SessionRecord? {
        guard let record = records[id] else { return nil }
        guard record.expiresAt > now() else {
            records[id] = nil
            return nil
        }
        return record
    }

    package func save(id: String, record: SessionRecord) {
        records[id] = record
    }

    package func update(id: String, record: SessionRecord) -> Bool {
        guard load(id: id) != nil else { return false }
        records[id] = record
        return true
    }

    package func delete(id: String) {
        records[id] = nil
    }

    /// How many sessions are stored, expired ones included.
    package var count: Int { records.count }
}
