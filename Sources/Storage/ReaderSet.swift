import Synchronization

/// The pool's read-only connections: each read runs on an idle one, or waits in line for the first to free up.
final class ReaderSet: Sendable {
    typealias Work = @Sendable (Database) -> Void

    private struct State: ~Copyable {
        var idle: [SerialConnection]
        var waiting: [Work] = []
    }

    private let state: Mutex<State>

    init(connections: [SerialConnection]) {
        self.state = Mutex(State(idle: connections))
    }

    /// Runs `work` on a reader connection, now if one is idle, else after the reads queued before it.
    func submit(_ work: @escaping Work) {
        let connection = state.withLock { state -> SerialConnection? in
            if let idle = state.idle.popLast() { return idle }
            state.waiting.append(work)
            return nil
        }
        if let connection { run(work, on: connection) }
    }

    /// Runs `work` on the calling thread when a connection is idle (no read waits in line then) and returns its
    /// result; nil, without running it, when every connection is busy.
    func runInline<T>(_ work: (Database) -> T) -> T? {
        guard let connection = state.withLock({ $0.idle.popLast() }) else { return nil }
        let result = connection.runHere(work)
        let next = state.withLock { state -> Work? in
            if state.waiting.isEmpty {
                state.idle.append(connection)
                return nil
            }
            return state.waiting.removeFirst()
        }
        if let next { run(next, on: connection) }
        return result
    }

    private func run(_ work: @escaping Work, on connection: SerialConnection) {
        connection.async { [self] database in
            var next: Work? = work
            while let current = next {
                current(database)
                next = state.withLock { state -> Work? in
                    if state.waiting.isEmpty {
                        state.idle.append(connection)
                        return nil
                    }
                    return state.waiting.removeFirst()
                }
            }
        }
    }
}
