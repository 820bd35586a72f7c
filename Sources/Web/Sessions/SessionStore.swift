import Foundation

/// The data kept for one session: string keys and values, plus when it stops being valid.
package struct SessionRecord: Sendable, Equatable {
    package var data: [String: String]
    package var expiresAt: Date

    package init(data: [String: String], expiresAt: Date) {
        self.data = data
        self.expiresAt = expiresAt
    }
}

/// Where sessions live between requests. Ids are opaque random strings chosen by the session middleware.
/// Implementations: an in-memory store (tests, development) in `Web`, and the SQLite store in `App`.
package protocol SessionStore: Sendable {
    /// The session with `id`, or nil when unknown or expired.
    func load(id: String) async throws -> SessionRecord?
    /// Creates or replaces the session with `id`: for a new id.
    func save(id: String, record: SessionRecord) async throws
    /// Replaces the record of the live session `id`; false, writing nothing, when it has ended meanwhile (deleted or
    /// expired), so that a request that loaded it before it ended cannot bring it back.
    func update(id: String, record: SessionRecord) async throws -> Bool
    /// Removes the session with `id`; unknown ids are ignored.
    func delete(id: String) async throws
}
