import Foundation
import Storage

/// The deletions that several tables share: rows that belong to a user, and rows whose `expires_at` has passed.
/// `table` is always one of the schema's own names, never input.
extension DatabaseClient {
    /// Deletes the rows of `table` whose `user_id` is `userID`; returns how many.
    func deleteRows(of userID: UUID, from table: String) async throws -> Int {
        try await write(SQL("DELETE FROM \(table) WHERE user_id = ?", [userID])).changes
    }

    /// Deletes the rows of `table` whose `expires_at` is at or before `now`; returns how many.
    func deleteRows(expiredAt now: Date, from table: String) async throws -> Int {
        try await write(SQL("DELETE FROM \(table) WHERE expires_at <= ?", [now])).changes
    }
}
