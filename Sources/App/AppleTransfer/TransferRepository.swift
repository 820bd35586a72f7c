import Foundation
import Storage

/// What a transfer reads and writes of users, on either engine: the transfer identifier each holds, for which team,
/// and when they moved. Every user is read in pages by id (flat memory, whatever the count), and each answer of
/// Apple is stored as it comes, so a run stopped half-way leaves only the users it had not finished.
struct TransferRepository: Sendable {
    let pool: any DatabaseClient

    /// One user a transfer asks Apple about.
    struct Item: Sendable, Equatable {
        var userID: UUID
        /// Export: the user's `sub`; import: their transfer identifier.
        var identifier: String
        /// The client id the user last signed in with, when known.
        var clientID: String?
    }

    /// `shared_settings` row holding when this database's first import changed a user (seconds since 1970).
    static let firstImportSetting = "apple_transfer_first_import"

    /// The smallest id, where paging starts.
    static let start = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    /// Users who moved to this team since their identifier was stored: a move older than the latest export (the
    /// app moved here once and is moving on) is not this one.
    static let moved = "transferred_at IS NOT NULL AND (transfer_exported_at IS NULL OR transferred_at >= transfer_exported_at)"

    /// Users still to export to `target`: holding no identifier for `target`, whether or not they moved here once.
    private static func exportCondition() -> String {
        "(transfer_sub IS NULL OR transfer_target IS NULL OR transfer_target <> ?)"
    }

    /// Users still to import into `team`: holding an identifier for it, and not moved since it was stored.
    private static func importCondition() -> String {
        "NOT (\(moved)) AND transfer_sub IS NOT NULL AND transfer_target = ?"
    }

    /// The next `limit` users to export to `target` after `after`, by id.
    func exportPage(target: String, after: UUID, limit: Int) async throws -> [Item] {
        try await page(identifier: "siwa_identifier", condition: Self.exportCondition(), team: target, after: after,
                       limit: limit)
    }

    /// How many users are still to export to `target`.
    func countToExport(target: String) async throws -> Int {
        try await count("SELECT COUNT(*) FROM users WHERE \(Self.exportCondition())", [target])
    }

    /// The next `limit` users to import into `team` after `after`, by id.
    func importPage(team: String, after: UUID, limit: Int) async throws -> [Item] {
        try await page(identifier: "transfer_sub", condition: Self.importCondition(), team: team, after: after,
                       limit: limit)
    }

    /// Users after `after` by id meeting `condition` (whose one parameter is `team`), with `identifier` as the column
    /// Apple is asked about.
    private func page(identifier: String, condition: String, team: String, after: UUID, limit: Int) async throws
        -> [Item]
    {
        try await pool.read(SQL("""
            SELECT id, \(identifier), apple_client_id FROM users WHERE id > ? AND \(condition) ORDER BY id LIMIT ?
            """, [after, team, limit])) { Item(userID: try $0[0], identifier: try $0[1], clientID: try $0[2]) }
    }

    /// How many users are still to import into `team`.
    func countToImport(team: String) async throws -> Int {
        try await count("SELECT COUNT(*) FROM users WHERE \(Self.importCondition())", [team])
    }

    /// Stores the transfer identifier Apple gave for `userID` and `target`, and when. A new move begins with it, so
    /// the 60-day window of an earlier import into this database is forgotten: the receiving side counts its own.
    /// - Returns: false when the user is gone (deleted after the run read them).
    func recordIdentifier(_ transferSub: String, target: String, userID: UUID, at date: Date) async throws -> Bool {
        try await pool.write([
            SQL("UPDATE users SET transfer_sub = ?, transfer_target = ?, transfer_exported_at = ? WHERE id = ?",
                [transferSub, target, date, userID]),
            SQL("DELETE FROM shared_settings WHERE name = ?", [Self.firstImportSetting]),
        ])[0].changes == 1
    }

    /// Stores the identifiers of a transfer file on the users they name (for `team`), leaving users who moved
    /// already as they are, in one transaction.
    /// - Returns: for each pair, whether it names a user of this database.
    func storeIdentifiers(_ pairs: [(userID: UUID, transferSub: String)], team: String, at date: Date) async throws
        -> [Bool]
    {
        guard !pairs.isEmpty else { return [] }
        let results = try await pool.write(pairs.map { pair in
            SQL("""
                UPDATE users SET transfer_sub = CASE WHEN \(Self.moved) AND transfer_target = ? THEN transfer_sub ELSE ? END,
                    transfer_exported_at = CASE WHEN \(Self.moved) AND transfer_target = ? THEN transfer_exported_at ELSE ? END,
                    transfer_target = CASE WHEN \(Self.moved) AND transfer_target = ? THEN transfer_target ELSE ? END
                WHERE id = ?
                """, [team, pair.transferSub, team, date, team, team, pair.userID])
        })
        return results.map { $0.changes == 1 }
    }

    /// What `recordMove` found.
    enum Move: Equatable {
        /// The user took the new `sub`.
        case moved
        /// The user had moved already (signed in by `transfer_sub` meanwhile): moved all the same.
        case movedMeanwhile
        /// The user was deleted after the run read them.
        case gone
    }

    /// Replaces the `sub`, and the e-mail and its flag when Apple gave them, of `userID`, which keeps its id, bearer
    /// tokens and sessions; the first such change also starts the 60-day window's clock (a user deleted meanwhile
    /// starts nothing: found by an audit, the window opened with nobody moved).
    /// - Throws: a `DatabaseFailure` of kind `.uniqueConstraint` when another user has that `sub`.
    func recordMove(userID: UUID, sub: String, email: String?, isPrivateEmail: Bool?, at date: Date) async throws
        -> Move
    {
        let results = try await pool.write([
            SQL("""
                UPDATE users SET siwa_identifier = ?, email = COALESCE(?, email),
                    is_private_email = COALESCE(?, is_private_email), transferred_at = ?, updated_at = ?
                WHERE id = ? AND NOT (\(Self.moved))
                """, [sub, email, isPrivateEmail, date, date, userID]),
            SQL("""
                INSERT INTO shared_settings (name, value) SELECT ?, ?
                WHERE EXISTS (SELECT 1 FROM users WHERE id = ? AND siwa_identifier = ? AND transferred_at = ?)
                ON CONFLICT (name) DO NOTHING
                """, [Self.firstImportSetting, String(Int(date.timeIntervalSince1970)), userID, sub, date]),
            SQL("SELECT 1 FROM users WHERE id = ?", [userID]),
        ])
        if results[0].changes == 1 { return .moved }
        return results[2].count == 1 ? .movedMeanwhile : .gone
    }

    /// The users holding an identifier for `target`, after `after` by id: the lines of a transfer file.
    func identifiers(target: String, after: UUID, limit: Int) async throws -> [(userID: UUID, transferSub: String)] {
        try await pool.read(SQL("""
            SELECT id, transfer_sub FROM users WHERE id > ? AND transfer_sub IS NOT NULL AND transfer_target = ?
            ORDER BY id LIMIT ?
            """, [after, target, limit])) { (userID: try $0[0] as UUID, transferSub: try $0[1] as String) }
    }

    /// When this database's first import moved a user, if one has. The row holds whole seconds, as written here; a
    /// value that is not (`1e300`, `inf`, written by hand or another tool) reads as none. Found by a review: taken
    /// as a `TimeInterval`, it made `transfer status` trap on the days left.
    func firstImport() async throws -> Date? {
        let value = try await pool.readOne(SQL("SELECT value FROM shared_settings WHERE name = ?",
                                               [Self.firstImportSetting])) { try $0[0] as String }
        return value.flatMap { Int($0) }.map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }

    /// When the first user of this database moved to this team, by an import or by a sign-in with `transfer_sub`:
    /// the transfer itself came before (TN3159 counts its 60 days from the transfer).
    func firstMove() async throws -> Date? {
        let signedIn = try await pool.readOne(SQL("SELECT MIN(transferred_at) FROM users WHERE \(Self.moved)")) {
            try $0[0] as Date?
        } ?? nil
        return [try await firstImport(), signedIn].compactMap { $0 }.min()
    }

    /// Counts for `siwa apple transfer status`.
    func counts() async throws -> (users: Int, exported: Int, migrated: Int, toMigrate: Int) {
        try await pool.readOne(SQL("""
            SELECT COUNT(*),
                COALESCE(SUM(CASE WHEN transfer_sub IS NOT NULL THEN 1 ELSE 0 END), 0),
                COALESCE(SUM(CASE WHEN \(Self.moved) THEN 1 ELSE 0 END), 0),
                COALESCE(SUM(CASE WHEN transfer_sub IS NOT NULL AND NOT (\(Self.moved)) THEN 1 ELSE 0 END), 0)
            FROM users
            """)) { (try $0[0] as Int, try $0[1] as Int, try $0[2] as Int, try $0[3] as Int) } ?? (0, 0, 0, 0)
    }

    private func count(_ text: String, _ arguments: [any DatabaseValueConvertible]) async throws -> Int {
        try await pool.readOne(SQL(text, arguments)) { try $0[0] as Int } ?? 0
    }
}
