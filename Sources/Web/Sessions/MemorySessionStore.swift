import Foundation

/// Sessions in memory, for tests and development: lost at restart, not shared between processes.
public actor MemorySessionStore: SessionStore {
    private var records: [String: SessionRecord] = [:]
    private let now: @Sendable () -> Date

    /// - Parameter now: The clock deciding expiry, injected for tests.
    public init(now: @escaping @Sendable () -> Date = { Date() }) {
        self.now = now
    }

    public func load(id: String) -> SessionRecord? {
        guard let record = records[id] else { return nil }
        guard record.expiresAt > now() else {
            records[id] = nil
            return nil
        }
        return record
    }

    public func save(id: String, record: SessionRecord) {
        records[id] = record
    }

    public func delete(id: String) {
        records[id] = nil
    }

    /// How many sessions are stored, expired ones included.
    public var count: Int { records.count }
}
