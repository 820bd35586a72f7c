import IOCore
import Logging
import Synchronization

/// Open connections per client address (`HTTPLimits.maxConnectionsPerAddress`), shared by every loop.
///
/// `admit` and `release` pair up: a connection admitted here is released exactly once, when it closes.
/// Refusals are logged at `notice`, at most once per `refusalLogInterval`, with how many there were since.
final class AddressConnectionCounter: Sendable {
    let limit: Int
    let exemptLoopback: Bool
    private let counts = Mutex<[AddressPrefix: Int]>([:])
    private let refusals = Mutex(Refusals())
    private let now: @Sendable () -> UInt64

    /// Nanoseconds between two refusal log lines.
    static let refusalLogInterval: UInt64 = 10_000_000_000

    private struct Refusals {
        var unlogged = 0
        var lastLogged: UInt64?
    }

    /// - Parameters:
    ///   - limit: Most connections open at once from one address; 0 counts nothing.
    ///   - exemptLoopback: Leave loopback peers uncounted (a local proxy or the operator stands for many clients).
    ///   - now: Monotonic nanoseconds, for spacing the log lines.
    init(limit: Int, exemptLoopback: Bool, now: @escaping @Sendable () -> UInt64 = MonotonicClock.now) {
        self.limit = limit
        self.exemptLoopback = exemptLoopback
        self.now = now
    }

    enum Admission: Equatable {
        /// Not counted: no limit, an exempt loopback peer, or not an IP socket.
        case uncounted
        /// Counted: `release` this prefix when the connection closes.
        case counted(AddressPrefix)
        /// The address already has `limit` connections open.
        case refused(AddressPrefix)
    }

    /// Counts a new connection from `prefix` unless that address is at the limit.
    func admit(_ prefix: AddressPrefix?) -> Admission {
        guard limit > 0, let prefix, !(exemptLoopback && prefix.isLoopback) else { return .uncounted }
        return counts.withLock { counts in
            let open = counts[prefix, default: 0]
            guard open < limit else { return .refused(prefix) }
            counts[prefix] = open + 1
            return .counted(prefix)
        }
    }

    /// Forgets one connection admitted under `prefix`.
    func release(_ prefix: AddressPrefix) {
        counts.withLock { counts in
            guard let open = counts[prefix] else { return }
            counts[prefix] = open > 1 ? open - 1 : nil
        }
    }

    /// Connections counted for `prefix` now.
    func openConnections(from prefix: AddressPrefix) -> Int { counts.withLock { $0[prefix, default: 0] } }

    /// Addresses with at least one counted connection.
    var trackedAddresses: Int { counts.withLock { $0.count } }

    /// Logs a refused connection, or counts it for the next line when one was logged recently.
    func logRefusal(of prefix: AddressPrefix, logger: Logger) {
        let time = now()
        let refusedSinceLastLine: Int? = refusals.withLock { state in
            state.unlogged += 1
            if let last = state.lastLogged, MonotonicClock.elapsed(from: last, to: time) < Self.refusalLogInterval {
                return nil
            }
            defer { state.unlogged = 0 }
            state.lastLogged = time
            return state.unlogged
        }
        guard let refusedSinceLastLine else { return }
        logger.notice("connection refused: too many open from one address", metadata: [
            "address": "\(prefix)", "maxConnectionsPerAddress": "\(limit)", "refused": "\(refusedSinceLastLine)",
        ])
    }
}
