import Foundation
import Storage

/// The deletions that several tables share: rows that belong to a user, and rows whose `expires_at` has passed.
/// `table` is always one of the schema's own names, never input.
extension DatabaseClient {
    /// Deletes the rows of `table` whose `user_id` is `userID`; returns how many.
    func deleteRows(of userID: UUID, from table: String) async throws -> Int {
        try await write(SQL("DELETE FROM \(table) WHERE user_id = ?", [userID])).changes
    }

    /// Deletes the rows of `table` whose `expires_at` is at or before `now`, `batch` rows (by the `key` column) per
    /// transaction, so that a large backlog neither holds SQLite's one writer nor outlasts a PostgreSQL statement's
    /// time; returns how many.
    func deleteRows(expiredAt now: Date, from table: String, key: String = "id",
                    batch: Int = Housekeeping.expiredRowsPerTransaction) async throws -> Int {
        var deleted = 0
        while true {
            let changes = try await write(SQL("""
                DELETE FROM \(table) WHERE \(key) IN (SELECT \(key) FROM \(table) WHERE expires_at <= ? LIMIT ?)
                """, [now, batch])).changes
            deleted += changes
            if changes < batch { return deleted }
        }
    }
}
