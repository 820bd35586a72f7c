import CLinux
import Glibc

/// The listening socket on the loop: watched with `EPOLLEXCLUSIVE` (not every loop wakes for each connection,
/// epoll_ctl(2)), paused at the connection limit or on descriptor exhaustion, resumed when there is room again,
/// dropped at shutdown.
extension EventLoop {
    /// Stops watching the listener (connection limit or descriptor exhaustion); `retryAfter` re-arms it later.
    func pauseListener(_ listener: Listener, retryAfter: UInt64?) {
        state.withLock { state in
            guard state.listenerRegistered else { return }
            epoll_ctl(epfd, EPOLL_CTL_DEL, listener.fd, nil)
            state.listenerRegistered = false
            state.listenerRetryAt = retryAfter.map { MonotonicClock.now() + $0 }
        }
    }

    /// Watches the listener again unless shutting down. `force` registers it the first time.
    func resumeListener(_ listener: Listener, force: Bool = false) {
        state.withLock { state in
            guard !state.listenerRegistered, !state.shuttingDown, force || !state.stopped else { return }
            var event = epoll_event(events: EPOLLIN.rawValue | EPOLLEXCLUSIVE.rawValue,
                                    data: epoll_data_t(fd: listener.fd))
            if epoll_ctl(epfd, EPOLL_CTL_ADD, listener.fd, &event) == 0 {
                state.listenerRegistered = true
                state.listenerRetryAt = nil
            }
        }
    }

    var isListenerPaused: Bool { state.withLock { !$0.listenerRegistered && !$0.shuttingDown } }

    /// Stops watching the listener and gives idle keep-alive connections until `idleDeadline` (monotonic ns) for a
    /// request already on its way; later ones wait no longer than that either.
    func beginShutdown(_ listener: Listener, idleDeadline: UInt64) {
        state.withLock { state in
            state.shuttingDown = true
            state.drainIdleDeadline = idleDeadline
            if state.listenerRegistered {
                epoll_ctl(epfd, EPOLL_CTL_DEL, listener.fd, nil)
                state.listenerRegistered = false
            }
            for (fd, waiter) in state.waiters where waiter.idle && waiter.deadline > idleDeadline {
                state.waiters[fd]?.deadline = idleDeadline
            }
        }
    }

    /// The grace period is over: shuts every connection's socket down (the peer sees the end, a responder still
    /// running finds its write failing) and ends every wait, and every later one, with `.shutdown`. Each
    /// descriptor is still closed by its connection, under the lock `deregister` takes first, so none is reused.
    func closeAllConnections() {
        let waiting: [Waiter] = state.withLock { state in
            state.closingAll = true
            for fd in state.pending.keys { shutdown(fd, Int32(SHUT_RDWR)) }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiting { waiter.continuation.resume(returning: .shutdown) }
    }
}
