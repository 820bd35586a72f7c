import CLinux
import IOCore
import Synchronization

/// The listening socket as one event loop watches it: with `EPOLLEXCLUSIVE` (not every loop wakes for each
/// connection, epoll_ctl(2)), paused at the connection limit or on descriptor exhaustion, resumed when there is
/// room again, dropped at shutdown. Readiness calls the acceptor on the loop's thread, and so does a paused
/// listener's timer, which at the limit looks for connections waiting in the backlog
/// (`ConnectionAcceptor.stillAtLimit`).
final class ListenerOnLoop: Sendable {
    let loop: EventLoop
    let listener: Listener

    private struct State {
        var registered = false
        var retryAt: UInt64?
        var shuttingDown = false
        weak var acceptor: ConnectionAcceptor?
    }

    private let state = Mutex(State())

    init(loop: EventLoop, listener: Listener) {
        self.loop = loop
        self.listener = listener
    }

    /// Starts accepting on the loop through `acceptor`.
    func start(acceptor: ConnectionAcceptor) {
        state.withLock { $0.acceptor = acceptor }
        resume(acceptor: acceptor)
    }

    /// Stops watching the listener (connection limit or descriptor exhaustion); `retryAfter` (ns) re-arms it then,
    /// on a timer of the loop, if there is room.
    func pause(retryAfter: UInt64?) {
        let paused = state.withLock { state -> Bool in
            guard state.registered else { return false }
            loop.unwatch(listener.fd)
            state.registered = false
            state.retryAt = nil
            return true
        }
        if paused, let retryAfter { retry(after: retryAfter) }
    }

    /// The retry armed for `retryAt` (`retry(after:)`), unless the listener was resumed (or paused again) meanwhile.
    private func retry(at retryAt: UInt64) {
        let acceptor = state.withLock { state -> ConnectionAcceptor? in
            guard state.retryAt == retryAt else { return nil }
            state.retryAt = nil
            return state.acceptor
        }
        guard let acceptor else { return }
        if acceptor.hasCapacity {
            resume(acceptor: acceptor)
        } else {
            acceptor.stillAtLimit(self)
        }
    }

    /// Runs `retry` again after `delay` (ns) while the listener stays paused.
    func retry(after delay: UInt64) {
        let retryAt = state.withLock { state -> UInt64? in
            guard !state.registered, !state.shuttingDown else { return nil }
            state.retryAt = MonotonicClock.now() + delay
            return state.retryAt
        }
        guard let retryAt else { return }
        loop.schedule(at: retryAt) { [weak self] in self?.retry(at: retryAt) }
    }

    /// Watches the listener again unless shutting down.
    func resume(acceptor: ConnectionAcceptor) {
        state.withLock { state in
            guard !state.registered, !state.shuttingDown else { return }
            let registered = loop.watch(listener.fd, events: EPOLLIN.rawValue | EPOLLEXCLUSIVE.rawValue) {
                [weak self, weak acceptor] _ in
                guard let self, let acceptor else { return }
                acceptor.acceptConnections(on: self)
            }
            if registered {
                state.registered = true
                state.retryAt = nil
            }
        }
    }

    var isPaused: Bool { state.withLock { !$0.registered && !$0.shuttingDown } }

    /// Stops watching the listener for good and gives the loop's idle connections until `idleDeadline` (monotonic
    /// ns) for a request already on its way.
    func beginShutdown(idleDeadline: UInt64) {
        state.withLock { state in
            state.shuttingDown = true
            if state.registered {
                loop.unwatch(listener.fd)
                state.registered = false
            }
        }
        loop.beginDraining(idleDeadline: idleDeadline)
    }
}
