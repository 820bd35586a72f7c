import IOCore

/// The connections to one origin and the requests waiting for one, as a state machine: events in, actions out,
/// no I/O, so every rule is tested without sockets (`HTTPConnectionPool` carries the actions out).
///
/// The rules:
/// - at most `maxConnections` open or opening at once; requests beyond wait in arrival order;
/// - an idle connection is reused before a new one is opened: first the most recently used one on the requesting
///   task's event loop (whose socket is registered there, so Apple's answer wakes that loop only, not a second one
///   that must hand the task back), then the most recently used of all (the likeliest to be warm at the server);
///   one idle longer than the idle timeout is closed, and so is one the server closed while it was idle;
/// - a connection given back goes straight to the oldest waiting request; a slot freed by a closed or failed
///   connection lets the oldest waiting request open its own.
struct HTTPConnectionPoolState {
    typealias ConnectionID = Int
    typealias RequestID = Int
    /// The event loop a connection's socket is registered on (`EventLoop.index`).
    typealias LoopIndex = Int

    let maxConnections: Int
    /// Idle connections, the most recently used last, with when they became idle (monotonic ns) and their loop.
    private(set) var idle: [(id: ConnectionID, since: UInt64, loop: LoopIndex)] = []
    private(set) var leased: Set<ConnectionID> = []
    /// Connections being opened (connect and TLS handshake), each for one request.
    private(set) var connecting = 0
    /// Requests waiting for a connection, oldest first.
    private(set) var waiting: [RequestID] = []

    init(maxConnections: Int) {
        self.maxConnections = max(1, maxConnections)
    }

    /// Connections open or being opened.
    var open: Int { idle.count + leased.count + connecting }

    enum LeaseAction: Equatable {
        /// Use this idle connection (check first that the server has not closed it).
        case use(ConnectionID)
        /// Open a new connection for this request.
        case connect
        /// Wait until a connection is handed over or a slot frees.
        case wait
    }

    /// Whether `lease` would answer `.use` or `.connect` now, rather than `.wait`.
    var canLeaseAtOnce: Bool { !idle.isEmpty || (open < maxConnections && waiting.isEmpty) }

    /// A request wants a connection; `loop` is the event loop its task runs on, when it runs on one of the pool's.
    mutating func lease(_ request: RequestID, on loop: LoopIndex? = nil) -> LeaseAction {
        if !idle.isEmpty {
            let index = loop.flatMap { loop in idle.lastIndex { $0.loop == loop } } ?? idle.count - 1
            let id = idle.remove(at: index).id
            leased.insert(id)
            return .use(id)
        }
        if open < maxConnections, waiting.isEmpty {
            connecting += 1
            return .connect
        }
        waiting.append(request)
        return .wait
    }

    /// A new connection is open and leased by the request that opened it.
    mutating func connected(_ id: ConnectionID) {
        connecting -= 1
        leased.insert(id)
    }

    /// What happens next for a waiting request, or for nobody.
    enum NextAction: Equatable {
        case none
        /// Hand this (still leased) connection to the request.
        case handOver(ConnectionID, to: RequestID)
        /// The request may open a connection of its own in the freed slot (already counted as connecting).
        case connect(for: RequestID)
    }

    /// A request is done with a connection registered on `loop`; `reusable` says whether it can carry another
    /// request.
    mutating func release(_ id: ConnectionID, reusable: Bool, now: UInt64, loop: LoopIndex) -> NextAction {
        guard leased.remove(id) != nil else { return .none }
        if reusable {
            if !waiting.isEmpty {
                leased.insert(id)
                return .handOver(id, to: waiting.removeFirst())
            }
            idle.append((id, now, loop))
            return .none
        }
        return slotFreed()
    }

    /// Opening a connection failed: its slot is free again.
    mutating func connectFailed() -> NextAction {
        connecting -= 1
        return slotFreed()
    }

    /// A leased connection was found closed by the server when it was about to be used: it is gone, and the
    /// request that held it opens a new one in its slot.
    mutating func replaceLeased(_ id: ConnectionID) {
        guard leased.remove(id) != nil else { return }
        connecting += 1
    }

    /// A waiting request gave up (its deadline passed); true when it was still waiting.
    mutating func cancelWaiting(_ request: RequestID) -> Bool {
        guard let index = waiting.firstIndex(of: request) else { return false }
        waiting.remove(at: index)
        return true
    }

    /// Closes the connections idle since before `now - idleTimeout`; returns them.
    mutating func expireIdle(now: UInt64, idleTimeout: UInt64) -> [ConnectionID] {
        var expired: [ConnectionID] = []
        idle.removeAll { entry in
            guard MonotonicClock.elapsed(from: entry.since, to: now) >= idleTimeout else { return false }
            expired.append(entry.id)
            return true
        }
        return expired
    }

    /// Removes those of `ids` that are still idle (the server closed them while they waited); returns them.
    mutating func removeIdle(_ ids: Set<ConnectionID>) -> [ConnectionID] {
        let removed = idle.filter { ids.contains($0.id) }.map(\.id)
        idle.removeAll { ids.contains($0.id) }
        return removed
    }

    /// Every idle connection, for a pool shutting down.
    mutating func removeAllIdle() -> [ConnectionID] {
        defer { idle = [] }
        return idle.map(\.id)
    }

    private mutating func slotFreed() -> NextAction {
        guard !waiting.isEmpty else { return .none }
        connecting += 1
        return .connect(for: waiting.removeFirst())
    }
}
