import Foundation
import Storage

/// The due work of one chore, claimed from its table in batches so that any number of runs (two instances, an
/// overlapping cron, a rerun after a kill) share it and each row is handed to one of them.
///
/// A row is due while its `due_at` has passed. Claiming moves `due_at` to the end of a lease, in one short write
/// transaction: on PostgreSQL the batch is picked with `FOR UPDATE SKIP LOCKED`, so concurrent claims never wait for
/// or take each other's rows (PostgreSQL docs, "The Locking Clause"); SQLite runs one write transaction at a time, so
/// the lease alone splits the work. A run killed before it finishes a row leaves it due again when the lease ends,
/// or at once for the next run on the same machine, which can tell that its claimant is gone (`ChoreClaimant`).
struct ChoreQueue: Sendable {
    let pool: any DatabaseClient
    let table: String
    /// A condition every due row also meets (stored tokens: not revoked).
    let condition: String
    /// Whether rows carry `user_id`.
    let hasUser: Bool

    /// How long a claimed batch stays with its run before another run may take the rows it has not finished.
    static let lease: TimeInterval = 10 * 60

    /// Stored Apple tokens not known to be revoked.
    static func appleTokens(_ pool: any DatabaseClient) -> ChoreQueue {
        ChoreQueue(pool: pool, table: "apple_tokens", condition: "revoked_at IS NULL", hasUser: true)
    }

    /// Revocations that failed at account deletion.
    static func pendingRevocations(_ pool: any DatabaseClient) -> ChoreQueue {
        ChoreQueue(pool: pool, table: "pending_revocations", condition: "1 = 1", hasUser: false)
    }

    /// Takes up to `limit` rows due before `dueBefore` (earliest first) and leases them until `leaseEnd`, naming
    /// this process as their claimant (`ChoreClaimant`).
    func claim(limit: Int, dueBefore: Date, leaseEnd: Date) async throws -> [ChoreItem] {
        let lock = pool.engine == .postgres ? " FOR UPDATE SKIP LOCKED" : ""
        let columns = hasUser ? "id, client_id, refresh_token, user_id" : "id, client_id, refresh_token"
        let result = try await pool.write(SQL("""
            UPDATE \(table) SET due_at = ?, claimed_by = ? WHERE id IN (
                SELECT id FROM \(table) WHERE \(condition) AND due_at < ? ORDER BY due_at LIMIT ?\(lock))
            RETURNING \(columns)
            """, [leaseEnd, ChoreClaimant.current?.text, dueBefore, limit]))
        return try result.map { try ChoreItem(row: $0, hasUser: hasUser, leaseEnd: leaseEnd) }
    }

    /// No rule sets a row due further ahead than this (a check a day on, a lease of minutes): a row due later was
    /// stamped by a clock that was ahead.
    static let furthestDue: TimeInterval = 2 * 24 * 60 * 60

    /// Makes due just before `now` the rows due more than `furthestDue` ahead: stamped while the clock was ahead (a
    /// check or a failure recorded at that time), they would otherwise wait out the clock's error, unchecked (found by
    /// an audit: a minute a month ahead left tokens unchecked for a month).
    /// - Returns: how many rows were brought back.
    func bringBackRowsDueTooLate(now: Date) async throws -> Int {
        try await pool.write(SQL("UPDATE \(table) SET due_at = ? WHERE \(condition) AND due_at > ?",
                                 [Self.dueAgain(at: now), now.addingTimeInterval(Self.furthestDue)])).changes
    }

    /// When a row handed back at `now` is due: a second before it, so that a run that starts at `now` (to the stored
    /// resolution) takes it.
    private static func dueAgain(at now: Date) -> Date { now.addingTimeInterval(-1) }

    /// Hands back, due just before `now`, the rows still leased to claimants known to be gone: a run on this machine that
    /// was killed (even with SIGKILL) before it finished them. Claimants that cannot be judged (another machine,
    /// another container) keep their rows until the lease lapses.
    /// - Returns: how many rows were handed back.
    func releaseClaimsOfGoneRuns(now: Date) async throws -> Int {
        guard let here = ChoreClaimant.current else { return 0 }
        let leased = leased(at: now)
        let claimants = try await pool.read(SQL("""
            SELECT DISTINCT claimed_by FROM \(table) WHERE \(leased.condition) AND claimed_by IS NOT NULL
            """, leased.arguments)) { try $0[0] as String }
        var released = 0
        for text in claimants {
            guard let claimant = ChoreClaimant(text: text), claimant.isGone(seenFrom: here) else { continue }
            released += try await pool.write(SQL("""
                UPDATE \(table) SET due_at = ?, claimed_by = NULL WHERE \(leased.condition) AND claimed_by = ?
                """, [Self.dueAgain(at: now)] + leased.arguments + [text])).changes
        }
        return released
    }

    /// The rows under some run's lease at `now`: claimed and not finished. A row settled or handed back loses its
    /// claimant, and only a lease ends within `lease` of `now`. Found by a review: settled rows kept their claimant,
    /// so a token checked a day ago a little later in the day counted as held by another run, and was taken back
    /// from a gone run and asked again before its day was out.
    private func leased(at now: Date) -> (condition: String, arguments: [any DatabaseValueConvertible]) {
        ("\(condition) AND claimed_by IS NOT NULL AND due_at > ? AND due_at <= ?",
         [now, now.addingTimeInterval(Self.lease)])
    }

    /// Keeps a claimed row with its run: once less than half the lease is left, extends it by `lease` from `now`, so
    /// that a run held back by a long throttle does not lose the rows it claimed to another run.
    /// - Returns: false once the lease has lapsed; another run may hold the row, so this one must leave it alone.
    func hold(_ item: inout ChoreItem, now: Date) async throws -> Bool {
        guard now >= item.leaseEnd.addingTimeInterval(-Self.lease / 2) else { return true }
        guard now < item.leaseEnd else { return false }
        // A row whose `due_at` is still ahead is under this run's lease: a claim takes only rows already due.
        let leaseEnd = now.addingTimeInterval(Self.lease)
        let renewed = try await pool.write(SQL("UPDATE \(table) SET due_at = ? WHERE id = ? AND due_at > ? RETURNING id",
                                               [leaseEnd, item.id, now]))
        guard renewed.count > 0 else { return false }
        item.leaseEnd = leaseEnd
        return true
    }

    /// Whether the row `id` is no longer this queue's: deleted (an account deletion, a notification), replaced by a
    /// sign-in with a code, or revoked.
    func isGone(id: UUID) async throws -> Bool {
        try await pool.readOne(SQL("SELECT COUNT(*) FROM \(table) WHERE \(condition) AND id = ?", [id])) {
            try $0[0] as Int
        } == 0
    }

    /// How many rows are due before `dueBefore`, leased or not (the total a progress line shows).
    func countDue(before dueBefore: Date) async throws -> Int {
        try await pool.readOne(SQL("SELECT COUNT(*) FROM \(table) WHERE \(condition) AND due_at < ?", [dueBefore])) {
            try $0[0] as Int
        } ?? 0
    }

    /// How many rows another run holds under its lease at `now` (`leased(at:)`).
    func countLeased(at now: Date) async throws -> Int {
        let leased = leased(at: now)
        return try await pool.readOne(SQL("SELECT COUNT(*) FROM \(table) WHERE \(leased.condition)", leased.arguments)) {
            try $0[0] as Int
        } ?? 0
    }

    /// Hands a claimed row back, due at `dueAt` (a failure: due again for the next run).
    func release(id: UUID, dueAt: Date) async throws {
        try await pool.write(SQL("UPDATE \(table) SET due_at = ?, claimed_by = NULL WHERE id = ?", [dueAt, id]))
    }
}
