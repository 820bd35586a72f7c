import CLinux
import IOCore
import Synchronization

/// The listening socket as one event loop watches it: with `EPOLLEXCLUSIVE` (not every loop wakes for each
/// connection, epoll_ctl(2)), paused at the connection limit or on descriptor exhaustion, resumed when there is
/// room again, dropped at shutdown. Readiness calls the acceptor on the loop's thread.
final class ListenerOnLoop: Sendable {
    let loop: EventLoop
    let listener: Listener

    private struct State {
        var registered = false
        var retryAt: UInt64?
        var shuttingDown = false
    }

    private let state = Mutex(State())

    init(loop: EventLoop, listener: Listener) {
        self.loop = loop
        self.listener = listener
    }

    /// Starts accepting on the loop through `acceptor`, and retries a listener paused by `EMFILE` at the loop's
    /// sweeps.
    func start(acceptor: ConnectionAcceptor) {
        loop.onTick(key: ObjectIdentifier(self)) { [weak self, weak acceptor] now in
            guard let self, let acceptor else { return }
            let retry = state.withLock { state in
                guard let at = state.retryAt, at <= now else { return false }
                state.retryAt = nil
                return true
            }
            if retry, acceptor.hasCapacity { resume(acceptor: acceptor) }
        }
        resume(acceptor: acceptor)
    }

    /// Stops watching the listener (connection limit or descriptor exhaustion); `retryAfter` (ns) re-arms it later.
    func pause(retryAfter: UInt64?) {
        state.withLock { state in
            guard state.registered else { return }
            loop.unwatch(listener.fd)
            state.registered = false
            state.retryAt = retryAfter.map { MonotonicClock.now() + $0 }
        }
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
        loop.onTick(key: ObjectIdentifier(self), nil)
        loop.beginDraining(idleDeadline: idleDeadline)
    }
}
