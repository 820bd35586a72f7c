import CLinux
import Glibc
import Synchronization

/// One epoll instance and the thread that waits on it.
///
/// The loop does no I/O for connections: a connection's task does its own non-blocking reads and writes and,
/// when the socket would block, parks here with `wait(for:events:deadline:idle:registered:)` until the fd is
/// ready, its deadline passes, or the server shuts down. The loop thread also accepts new connections.
/// Every fd is registered `EPOLLONESHOT`, so exactly one party owns a parked fd at a time.
final class EventLoop: Sendable {
    enum Readiness: Sendable { case ready, timedOut, shutdown }

    private struct Waiter {
        var continuation: UnsafeContinuation<Readiness, Never>
        var deadline: UInt64
        var idle: Bool
    }

    private struct State {
        var waiters: [Int32: Waiter] = [:]
        var shuttingDown = false
        var stopped = false
        var listenerRegistered = false
        var listenerRetryAt: UInt64?
    }

    private static let sweepInterval: UInt64 = 25_000_000
    let index: Int
    private let epfd: Int32
    private let wakeFD: Int32
    private let state = Mutex(State())

    init(index: Int) throws {
        self.index = index
        epfd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epfd >= 0 else { throw SocketError("epoll_create1") }
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        guard wakeFD >= 0 else {
            let error = SocketError("eventfd")
            close(epfd)
            throw error
        }
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(fd: wakeFD))
        epoll_ctl(epfd, EPOLL_CTL_ADD, wakeFD, &event)
    }

    deinit {
        close(wakeFD)
        close(epfd)
    }

    /// Parks the calling task until `fd` is ready for `events`, `deadline` (monotonic ns) passes, or — for an
    /// `idle` connection — the server starts shutting down.
    func wait(for fd: Int32, events: UInt32, deadline: UInt64, idle: Bool, registered: inout Bool) async -> Readiness {
        let operation = registered ? EPOLL_CTL_MOD : EPOLL_CTL_ADD
        registered = true
        return await withUnsafeContinuation { continuation in
            let refused: Bool = state.withLock { state in
                if idle && state.shuttingDown { return true }
                state.waiters[fd] = Waiter(continuation: continuation, deadline: deadline, idle: idle)
                return false
            }
            if refused {
                continuation.resume(returning: .shutdown)
                return
            }
            var event = epoll_event(events: events | EPOLLONESHOT.rawValue | EPOLLRDHUP.rawValue,
                                    data: epoll_data_t(fd: fd))
            if epoll_ctl(epfd, operation, fd, &event) != 0 {
                let other = operation == EPOLL_CTL_MOD ? EPOLL_CTL_ADD : EPOLL_CTL_MOD
                if epoll_ctl(epfd, other, fd, &event) != 0, let waiter = take(fd) {
                    waiter.continuation.resume(returning: .ready)
                }
            }
        }
    }

    private func take(_ fd: Int32) -> Waiter? {
        state.withLock { $0.waiters.removeValue(forKey: fd) }
    }

    /// Runs the loop on the calling thread until `stop()`; accepts on `listener` through `acceptor`.
    func run(listener: Listener, acceptor: ConnectionAcceptor) {
        resumeListener(listener, force: true)
        var events = [epoll_event](repeating: epoll_event(), count: 512)
        var ready: [UnsafeContinuation<Readiness, Never>] = []
        ready.reserveCapacity(512)
        var nextSweep = MonotonicClock.now() + Self.sweepInterval
        while true {
            let count = events.withUnsafeMutableBufferPointer {
                epoll_wait(epfd, $0.baseAddress, Int32($0.count), 25)
            }
            var acceptNow = false
            var wake = false
            if count > 0 {
                state.withLock { state in
                    for i in 0..<Int(count) {
                        let fd = events[i].data.fd
                        if fd == wakeFD {
                            wake = true
                        } else if fd == listener.fd {
                            acceptNow = true
                        } else if let waiter = state.waiters.removeValue(forKey: fd) {
                            ready.append(waiter.continuation)
                        }
                    }
                }
                for continuation in ready { continuation.resume(returning: .ready) }
                ready.removeAll(keepingCapacity: true)
            }
            if wake {
                var value: UInt64 = 0
                _ = read(wakeFD, &value, 8)
                if state.withLock({ $0.stopped }) { return }
            }
            if acceptNow { acceptor.acceptConnections(from: listener, on: self) }
            let now = MonotonicClock.now()
            if now >= nextSweep {
                nextSweep = now + Self.sweepInterval
                sweep(now: now, listener: listener, acceptor: acceptor)
            }
        }
    }

    /// Resumes every waiter whose deadline has passed; retries a listener paused by `EMFILE`.
    private func sweep(now: UInt64, listener: Listener, acceptor: ConnectionAcceptor) {
        let expired: [Waiter] = state.withLock { state in
            var expired: [Waiter] = []
            for (fd, waiter) in state.waiters where waiter.deadline <= now {
                expired.append(waiter)
                state.waiters[fd] = nil
            }
            return expired
        }
        for waiter in expired { waiter.continuation.resume(returning: .timedOut) }
        let retry = state.withLock { state in
            guard let at = state.listenerRetryAt, at <= now else { return false }
            state.listenerRetryAt = nil
            return true
        }
        if retry, acceptor.hasCapacity { resumeListener(listener, force: false) }
    }

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

    /// Ends `run` after its current iteration.
    func stop() {
        state.withLock { $0.stopped = true }
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }
}
