import Foundation
import Storage

/// The lease that lets one instance at a time run the server's schedule of Apple's chores: a row of
/// `chore_leases` naming its holder until `expires_at`, and when the next run is due. A holder renews it while it
/// runs; one that dies stops renewing, and the lease lapses for another instance to take.
struct ChoreLease: Sendable {
    let pool: any DatabaseClient
    /// This instance, as the lease names it.
    let holder: String
    let name: String

    /// How long the lease lasts without renewal: with `ChoreSchedule.maxPollInterval`, how soon another instance
    /// takes over from a dead holder (README: within 2 minutes).
    static let duration: TimeInterval = 90
    /// How often a holder renews it (a third of `duration`, so two renewals may fail before it lapses).
    static let renewal: TimeInterval = duration / 3

    init(pool: any DatabaseClient, holder: String = UUID().uuidString.lowercased(), name: String = "apple-chores") {
        self.pool = pool
        self.holder = holder
        self.name = name
    }

    /// How far instances' clocks may disagree before one takes another's next run for a shortened interval.
    static let clockSkewAllowance: TimeInterval = 5 * 60

    /// Takes the lease when the next run is due at `now` and no live holder has it (one upsert, one transaction).
    /// A next run set further off than `interval` (and `clockSkewAllowance`) from now was set with a longer interval
    /// than this instance's (the operator shortened `APPLE_CHORES_INTERVAL`), and is due at once: this instance's
    /// interval is the schedule from now on. Found by an audit: going from 24h to 1h waited up to a day for the first
    /// run. The allowance keeps an instance whose clock is behind the one that set the next run from reading it as
    /// shortened (found by an audit: with one instance 30 s behind, each interval had two runs).
    /// - Returns: whether this instance holds it now.
    func acquire(now: Date, interval: TimeInterval) async throws -> Bool {
        let expires = now.addingTimeInterval(Self.duration)
        let result = try await pool.write(SQL("""
            INSERT INTO chore_leases (name, holder, expires_at, next_run_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
            WHERE (chore_leases.next_run_at <= ? OR chore_leases.next_run_at > ?)
                AND (chore_leases.holder IS NULL OR chore_leases.expires_at < ?)
            RETURNING holder
            """, [name, holder, expires, now, now, now.addingTimeInterval(interval + Self.clockSkewAllowance), now]))
        return result.count == 1
    }

    /// Extends the lease from `now`; false when this instance no longer holds it.
    func renew(now: Date) async throws -> Bool {
        try await pool.write(SQL("UPDATE chore_leases SET expires_at = ? WHERE name = ? AND holder = ?",
                                 [now.addingTimeInterval(Self.duration), name, holder])).changes == 1
    }

    /// Gives the lease up; `nextRun` (when the run finished) is when the next may start, else it may start at once.
    func release(now: Date, nextRun: Date?) async throws {
        let setNext = nextRun == nil ? "" : ", next_run_at = ?"
        let arguments: [any DatabaseValueConvertible] = [now] + (nextRun.map { [$0] } ?? []) + [name, holder]
        try await pool.write(SQL("UPDATE chore_leases SET holder = NULL, expires_at = ?\(setNext) WHERE name = ? AND holder = ?",
                                 arguments))
    }
}
