import CLinux
import Glibc
import Synchronization

/// One epoll instance and the thread that waits on it.
///
/// The loop does no I/O for connections: a connection's task does its own non-blocking reads and writes and,
/// when the socket would block, parks here with `wait(for:events:deadline:idle:)` until the fd is ready, its
/// deadline passes, or the server shuts down. The loop thread also accepts new connections, and it is the
/// connections' task executor (`EventLoop+Executor.swift`): their tasks run on this thread between two
/// `epoll_wait` calls, so a request costs no thread hop to answer.
/// Connections are registered once, edge-triggered; an edge that arrives while nobody waits is remembered in
/// `pending`, so parking costs no system call.
final class EventLoop: Sendable {
    enum Readiness: Sendable { case ready, timedOut, shutdown }

    struct Waiter {
        var continuation: UnsafeContinuation<Readiness, Never>
        var deadline: UInt64
        var idle: Bool
        var events: UInt32
    }

    /// Events that end any wait: errors and hang-ups wake readers and writers alike.
    private static let always = EPOLLERR.rawValue | EPOLLHUP.rawValue | EPOLLRDHUP.rawValue
    /// A hang-up that wakes a waiter is also left in `pending` for the next wait to read: a reader woken by data
    /// and FIN in one edge makes a short read, counts the socket as drained, and would otherwise sleep until a
    /// timeout with the end of input unread. It is taken once (a stale event for a reused descriptor costs one
    /// extra read, never a loop); a half-close does not end a wait for writing (the client may still read).
    private static let hangUps = EPOLLERR.rawValue | EPOLLHUP.rawValue | EPOLLRDHUP.rawValue

    struct State {
        var waiters: [Int32: Waiter] = [:]
        var pending: [Int32: UInt32] = [:]
        var watchingWrites: Set<Int32> = []
        var shuttingDown = false
        /// Once shutting down: when idle connections close (`HTTPServerConfiguration.drainIdleTimeout` after it began).
        var drainIdleDeadline: UInt64 = .max
        /// The grace period is over: every wait ends with `.shutdown`.
        var closingAll = false
        var stopped = false
        var listenerRegistered = false
        var listenerRetryAt: UInt64?
        /// Jobs of tasks that prefer this loop as their executor, run by the loop thread in order.
        var jobs: [UnownedJob] = []
        /// The loop thread is in (or about to enter) `epoll_wait`: a new job must write `wakeFD`.
        var sleeping = false
    }

    private static let sweepInterval: UInt64 = 25_000_000
    let index: Int
    /// The epoll instance; `EventLoop+Listener.swift` adds and removes the listener on it.
    let epfd: Int32
    let wakeFD: Int32
    let state = Mutex(State())

    init(index: Int) throws {
        self.index = index
        epfd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epfd >= 0 else { throw SocketError("epoll_create1") }
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        // Every property is set from here on, so a throw runs `deinit`, which closes `epfd` (and `close(-1)` is
        // harmless); closing it here too would close whatever another thread opened under that number meanwhile.
        guard wakeFD >= 0 else { throw SocketError("eventfd") }
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(fd: wakeFD))
        epoll_ctl(epfd, EPOLL_CTL_ADD, wakeFD, &event)
    }

    deinit {
        close(wakeFD)
        close(epfd)
    }

    /// Starts watching a new connection (edge-triggered reads and hang-ups).
    func register(_ fd: Int32) -> Bool {
        state.withLock { $0.pending[fd] = 0 }
        var event = epoll_event(events: EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue,
                                data: epoll_data_t(fd: fd))
        return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event) == 0
    }

    /// Forgets a connection; call before closing its descriptor so a reused number starts clean.
    func deregister(_ fd: Int32) {
        state.withLock { state in
            state.pending[fd] = nil
            state.watchingWrites.remove(fd)
            state.waiters[fd] = nil
        }
    }

    /// Parks the calling task until `fd` is ready for `events` (`EPOLLIN` or `EPOLLOUT`), `deadline`
    /// (monotonic ns) passes — for an `idle` connection, no later than the drain deadline once shutdown has
    /// begun — or the grace period ends (`.shutdown`).
    /// Call only after the operation returned EAGAIN (or a short read): edges are not repeated.
    func wait(for fd: Int32, events: UInt32, deadline: UInt64, idle: Bool) async -> Readiness {
        await withUnsafeContinuation { continuation in
            let (immediate, watchWrites): (Readiness?, Bool) = state.withLock { state in
                if state.closingAll { return (.shutdown, false) }
                let deadline = idle ? min(deadline, state.drainIdleDeadline) : deadline
                let wanted = events | Self.always
                let ending = events & EPOLLIN.rawValue != 0 ? wanted : wanted & ~EPOLLRDHUP.rawValue
                if let pending = state.pending[fd], pending & ending != 0 {
                    state.pending[fd] = pending & ~ending
                    return (.ready, false)
                }
                state.waiters[fd] = Waiter(continuation: continuation, deadline: deadline, idle: idle, events: wanted)
                guard events & EPOLLOUT.rawValue != 0, !state.watchingWrites.contains(fd) else { return (nil, false) }
                state.watchingWrites.insert(fd)
                return (nil, true)
            }
            if let immediate {
                continuation.resume(returning: immediate)
                return
            }
            if watchWrites {
                var event = epoll_event(events: EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLRDHUP.rawValue
                                        | EPOLLET.rawValue, data: epoll_data_t(fd: fd))
                if epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &event) != 0, let waiter = take(fd) {
                    waiter.continuation.resume(returning: .ready)
                }
            }
        }
    }

    private func take(_ fd: Int32) -> Waiter? {
        state.withLock { $0.waiters.removeValue(forKey: fd) }
    }

    /// Runs the loop on the calling thread until `stop()`; accepts on `listener` through `acceptor`; runs the
    /// tasks added with `EventLoopIteration.runAtEnd` after each iteration's jobs.
    func run(listener: Listener, acceptor: ConnectionAcceptor) {
        let endTasks = IterationEndTasks()
        endTasks.attachToThread()
        defer {
            endTasks.run()
            endTasks.detachFromThread()
        }
        resumeListener(listener, force: true)
        var events = [epoll_event](repeating: epoll_event(), count: 512)
        var ready: [UnsafeContinuation<Readiness, Never>] = []
        ready.reserveCapacity(512)
        var nextSweep = MonotonicClock.now() + Self.sweepInterval
        var jobs: [UnownedJob] = []
        while true {
            let timeout: Int32 = state.withLock { state in
                guard state.jobs.isEmpty, endTasks.isEmpty else { return 0 }
                state.sleeping = true
                return 25
            }
            let count = events.withUnsafeMutableBufferPointer {
                epoll_wait(epfd, $0.baseAddress, Int32($0.count), timeout)
            }
            var acceptNow = false
            var wake = false
            state.withLock { state in
                state.sleeping = false
                if count > 0 {
                    for i in 0..<Int(count) {
                        let fd = events[i].data.fd
                        if fd == wakeFD {
                            wake = true
                        } else if fd == listener.fd {
                            acceptNow = true
                        } else {
                            let bits = events[i].events
                            if let waiter = state.waiters[fd], waiter.events & bits != 0 {
                                state.waiters[fd] = nil
                                state.pending[fd] = (state.pending[fd] ?? 0) | (bits & (~waiter.events | Self.hangUps))
                                ready.append(waiter.continuation)
                            } else if let pending = state.pending[fd] {
                                state.pending[fd] = pending | bits
                            }
                        }
                    }
                }
            }
            for continuation in ready { continuation.resume(returning: .ready) }
            ready.removeAll(keepingCapacity: true)
            if wake {
                var value: UInt64 = 0
                _ = read(wakeFD, &value, 8)
                if state.withLock({ $0.stopped }) {
                    handOffJobs()
                    return
                }
            }
            if acceptNow { acceptor.acceptConnections(from: listener, on: self) }
            runJobs(&jobs)
            endTasks.run()
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

    /// Ends `run` after its current iteration.
    func stop() {
        state.withLock { $0.stopped = true }
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }
}
