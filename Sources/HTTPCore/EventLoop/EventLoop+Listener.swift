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

    /// Stops accepting and wakes idle keep-alive connections so they close.
    func beginShutdown(_ listener: Listener) {
        let idle: [Waiter] = state.withLock { state in
            state.shuttingDown = true
            if state.listenerRegistered {
                epoll_ctl(epfd, EPOLL_CTL_DEL, listener.fd, nil)
                state.listenerRegistered = false
            }
            var idle: [Waiter] = []
            for (fd, waiter) in state.waiters where waiter.idle {
                idle.append(waiter)
                state.waiters[fd] = nil
            }
            return idle
        }
        for waiter in idle { waiter.continuation.resume(returning: .shutdown) }
    }
}
