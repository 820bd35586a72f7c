import IOCore
import Storage

/// Whether the PostgreSQL servers `DATABASE_URL` names take writes, asked on a connection of its own before the
/// server opens its pool: a URL that reaches only a standby (or, with `target_session_attrs=read-write`, only
/// standbys) is read-only, which is worth waiting for, not a reason to exit; one that reaches no server yet is
/// waited for up to the start's wait.
enum DatabaseWritability: Equatable {
    case writable
    /// The server answers but takes no writes; the reason is PostgreSQL's or libpq's words.
    case readOnly(reason: String)
    /// No server answered (down, or not there): worth waiting for, up to the start's wait.
    case unreachable(reason: String)
    /// A server answered and refused (a password, a database that is not there): the start refuses at once.
    case refused

    /// Asks once, within the pool's connect timeout.
    /// - Parameter preparedStatements: `DATABASE_PREPARED_STATEMENTS`: off behind a pooler in transaction mode.
    static func probe(_ url: PostgresURL, preparedStatements: Bool, group: EventLoopGroup) async -> DatabaseWritability {
        let pool = PostgresPool(url: url, size: 1, preparedStatements: preparedStatements, group: group)
        do {
            let answer = try await pool.readOne(SQL("SELECT current_setting('transaction_read_only') = 'off'")) {
                try $0[0] as Bool
            }
            return answer == true ? .writable : .readOnly(reason: "transaction_read_only is on")
        } catch let error as PostgresError where error.isReadOnlyServer {
            return .readOnly(reason: error.message)
        } catch let error as PostgresError where error.reason == .unavailable {
            return .unreachable(reason: error.message)
        } catch {
            return .refused
        }
    }
}
