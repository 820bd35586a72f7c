import Synchronization

/// The pool's read-only connections: each read runs on an idle one, or waits in line for the first to free up.
final class ReaderSet: Sendable {
    typealias Work = @Sendable (Database) -> Void

    private struct State: ~Copyable {
        var idle: [SerialConnection]
        var waiting: [Work] = []
        /// Connections not yet closed.
        var open: Int
        /// Set by `close()`: no read is taken any more, and each connection closes once the reads queued are done.
        var isClosed = false
        /// The callers of `close()`, resumed when the last connection has closed.
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    init(connections: [SerialConnection]) {
        self.state = Mutex(State(idle: connections, open: connections.count))
    }

    /// Runs `work` on a reader connection, now if one is idle, else after the reads queued before it.
    /// - Returns: false, without running `work`, once the set is closed.
    func submit(_ work: @escaping Work) -> Bool {
        let (accepted, connection) = state.withLock { state -> (Bool, SerialConnection?) in
            if state.isClosed { return (false, nil) }
            if let idle = state.idle.popLast() { return (true, idle) }
            state.waiting.append(work)
            return (true, nil)
        }
        if let connection { run(work, on: connection) }
        return accepted
    }

    /// Runs `work` on the calling thread when a connection is idle (no read waits in line then) and returns its
    /// result, or throws what it throws; nil, without running it, when every connection is busy or the set is
    /// closed. (Rethrowing rather than returning a `Result` spares a generic type's metadata lookup per call.)
    func runInline<T>(_ work: (Database) throws -> T) rethrows -> T? {
        guard let connection = state.withLock({ $0.idle.popLast() }) else { return nil }
        defer { if let next = next(after: connection) { run(next, on: connection) } }
        return try connection.runHere(work)
    }

    /// Takes no more reads, lets the reads already queued finish, closes every connection and returns once the
    /// last one is closed.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> [SerialConnection]? in
                state.isClosed = true
                guard state.open > 0 else { return nil }
                state.closeWaiters.append(continuation)
                defer { state.idle = [] }
                return state.idle
            }
            guard let idle else { return continuation.resume() }
            for connection in idle {
                connection.async { [self] _ in closeHeld(connection) }
            }
        }
    }

    private func run(_ work: @escaping Work, on connection: SerialConnection) {
        connection.async { [self] database in
            var next: Work? = work
            while let current = next {
                current(database)
                next = self.next(after: connection)
            }
        }
    }

    /// What `connection`, done with its read, does next: the first read waiting, or nothing once it is back among
    /// the idle ones, or closed when the set is.
    private func next(after connection: SerialConnection) -> Work? {
        let (next, close) = state.withLock { state -> (Work?, Bool) in
            if !state.waiting.isEmpty { return (state.waiting.removeFirst(), false) }
            if state.isClosed { return (nil, true) }
            state.idle.append(connection)
            return (nil, false)
        }
        if close { closeHeld(connection) }
        return next
    }

    /// Closes a connection its caller holds (on its queue, or checked out), and resumes `close()` after the last.
    private func closeHeld(_ connection: SerialConnection) {
        connection.runHere { $0.close() }
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open -= 1
            guard state.open == 0 else { return [] }
            defer { state.closeWaiters = [] }
            return state.closeWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
