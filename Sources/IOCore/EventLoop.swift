import CLinux
import Glibc
import Synchronization

/// One epoll instance and the thread that waits on it: the only place in the process where a task waits for a
/// socket. The HTTP server's connections, the PostgreSQL connections and the HTTP client's connections all park
/// here, and so do timers (`EventLoop+Timers.swift`).
///
/// The loop does no I/O itself: a task does its own non-blocking reads and writes and, when the socket would block,
/// parks here until the descriptor is ready, its deadline passes, or (for a draining server) the grace period ends.
/// The loop thread is also the task executor of whatever prefers it (`EventLoop+Executor.swift`), so a task woken
/// here runs on this thread in the same iteration, with no hop to Swift's cooperative pool.
///
/// Two ways to wait, one per kind of socket:
/// - `register(_:drains:)` then `wait(for:events:deadline:idle:)`: edge-triggered, for sockets whose reads and
///   writes this process makes itself (call `wait` only after EAGAIN or a short read: edges are not repeated);
/// - `waitOnce(for:events:deadline:)`: one-shot and level-triggered, for sockets a C library reads (libpq), which
///   may leave bytes unread or swap its descriptor.
///
/// Code that runs on the loop thread must not block: `assertInEventLoop()` and `assertNotInEventLoop()` state in
/// debug builds which side of that line a function is on.
package final class EventLoop: Sendable {
    package enum Readiness: Sendable, Equatable {
        case ready, timedOut
        /// The descriptor was forgotten (`forgetOnce`), or its server's grace period is over (`closeDrainingSockets`).
        case shutdown
    }

    struct Waiter {
        var continuation: UnsafeContinuation<Readiness, Never>
        var deadline: UInt64
        var idle: Bool
        var events: UInt32
        /// For a server connection waiting for its next request: when it fell idle (monotonic ns), which
        /// `endIdleWaits` goes by; 0 for every other wait.
        var idleSince: UInt64 = 0
    }

    /// Events that end any wait: errors and hang-ups wake readers and writers alike.
    static let always = EPOLLERR.rawValue | EPOLLHUP.rawValue | EPOLLRDHUP.rawValue

    struct State {
        var waiters: [Int32: Waiter] = [:]
        /// Registered (edge-triggered) descriptors, with the edges that arrived while nobody waited.
        var pending: [Int32: UInt32] = [:]
        /// Registered descriptors that a server's drain and close apply to.
        var draining: Set<Int32> = []
        var watchingWrites: Set<Int32> = []
        /// Descriptors added for one-shot waits.
        var oneShot: Set<Int32> = []
        /// Descriptors whose readiness calls a handler on the loop thread instead of resuming a task.
        var handlers: [Int32: @Sendable (UInt32) -> Void] = [:]
        /// No waiter's deadline is earlier (monotonic ns): the next sweep is due then, and none before. Lowered as
        /// waits begin, made exact by each sweep.
        var waiterDeadlineBound: UInt64 = .max
        /// While `sleeping`: when the loop's `epoll_wait` returns at the latest (monotonic ns; `.max`: only for an
        /// event). A deadline set from another thread earlier than this wakes the loop.
        var plannedWake: UInt64 = .max
        var timers = TimerQueue()
        /// Once a server drains: when its idle connections close.
        var drainIdleDeadline: UInt64 = .max
        /// The grace period is over: every wait on a draining descriptor ends with `.shutdown`.
        var closingDraining = false
        var stopped = false
        /// Jobs of tasks that prefer this loop as their executor, run by the loop thread in order.
        var jobs: [UnownedJob] = []
        /// The loop thread is in (or about to enter) `epoll_wait`: a new job must write `wakeFD`.
        var sleeping = false
        /// Tasks parked by `yieldToSockets`, resumed after the next `epoll_wait`.
        var nextIteration: [UnsafeContinuation<Void, Never>] = []

        /// Takes `deadline` into `waiterDeadlineBound`; true when the sleeping loop must be woken to sweep by then.
        mutating func lowerWaiterDeadlineBound(to deadline: UInt64) -> Bool {
            guard deadline < waiterDeadlineBound else { return false }
            waiterDeadlineBound = deadline
            return sleeping && deadline < plannedWake
        }
    }

    /// The least time between two sweeps of the waiters' deadlines (ns): a wait ends at most this much after its
    /// deadline. A loop with no deadline due sleeps until its next event or timer, however long.
    static let sweepInterval: UInt64 = 25_000_000
    /// The loop's place in its group (0 for a loop of its own).
    package let index: Int
    let epfd: Int32
    let wakeFD: Int32
    let state = Mutex(State())

    package init(index: Int = 0) throws {
        self.index = index
        epfd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epfd >= 0 else { throw EventLoopError("epoll_create1", errno: errno) }
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        // Every property is set from here on, so a throw runs `deinit`, which closes `epfd` (and `close(-1)` is
        // harmless); closing it here too would close whatever another thread opened under that number meanwhile.
        guard wakeFD >= 0 else { throw EventLoopError("eventfd", errno: errno) }
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(fd: wakeFD))
        epoll_ctl(epfd, EPOLL_CTL_ADD, wakeFD, &event)
    }

    deinit {
        close(wakeFD)
        close(epfd)
    }

    /// Starts watching a socket this process reads and writes itself (edge-triggered reads and hang-ups).
    /// - Parameter drains: the socket is a server connection, which `beginDraining` and `closeDrainingSockets`
    ///   apply to; client sockets are not.
    package func register(_ fd: Int32, drains: Bool = false) -> Bool {
        state.withLock { state in
            state.pending[fd] = 0
            if drains { state.draining.insert(fd) }
        }
        var event = epoll_event(events: EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue,
                                data: epoll_data_t(fd: fd))
        return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event) == 0
    }

    /// Forgets a registered socket; call before closing its descriptor so a reused number starts clean.
    package func deregister(_ fd: Int32) {
        state.withLock { state in
            state.pending[fd] = nil
            state.draining.remove(fd)
            state.watchingWrites.remove(fd)
            state.waiters[fd] = nil
        }
    }

    /// Whether a hang-up or error has been seen on a registered socket and not yet taken by a wait: a pooled
    /// connection whose peer closed it shows here before it is used again.
    package func hasHungUp(_ fd: Int32) -> Bool {
        state.withLock { ($0.pending[fd] ?? 0) & Self.always != 0 }
    }

    /// Parks the calling task until registered `fd` is ready for `events` (`EPOLLIN` or `EPOLLOUT`), `deadline`
    /// (monotonic ns) passes — for an `idle` server connection, no later than the drain deadline once draining has
    /// begun — or the grace period ends (`.shutdown`).
    /// Call only after the operation returned EAGAIN (or a short read), or before the first read of an answer to a
    /// request just written: edges are not repeated, but one that comes before the wait is kept for it.
    /// - Parameter idleSince: for a server connection waiting for its next request, when it fell idle: such a wait
    ///   `endIdleWaits` may end, at a server's connection limit. 0 (any other wait, a TLS handshake's included) it
    ///   never ends.
    package func wait(for fd: Int32, events: UInt32, deadline: UInt64, idle: Bool = false, idleSince: UInt64 = 0) async
        -> Readiness
    {
        await withUnsafeContinuation { continuation in
            var wake = false
            let (immediate, watchWrites): (Readiness?, Bool) = state.withLock { state in
                if state.stopped || state.closingDraining && state.draining.contains(fd) { return (.shutdown, false) }
                let deadline = idle ? min(deadline, state.drainIdleDeadline) : deadline
                let wanted = events | Self.always
                let ending = events & EPOLLIN.rawValue != 0 ? wanted : wanted & ~EPOLLRDHUP.rawValue
                if let pending = state.pending[fd], pending & ending != 0 {
                    state.pending[fd] = pending & ~ending
                    return (.ready, false)
                }
                state.waiters[fd] = Waiter(continuation: continuation, deadline: deadline, idle: idle, events: wanted,
                                           idleSince: idleSince)
                wake = state.lowerWaiterDeadlineBound(to: deadline)
                guard events & EPOLLOUT.rawValue != 0, !state.watchingWrites.contains(fd) else { return (nil, false) }
                state.watchingWrites.insert(fd)
                return (nil, true)
            }
            if let immediate {
                continuation.resume(returning: immediate)
                return
            }
            if wake { wakeUp() }
            if watchWrites {
                var event = epoll_event(events: EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLRDHUP.rawValue
                                        | EPOLLET.rawValue, data: epoll_data_t(fd: fd))
                if epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &event) != 0, let waiter = take(fd) {
                    waiter.continuation.resume(returning: .ready)
                }
            }
        }
    }

    /// Parks the calling task until `fd` is readable (and, with `EPOLLOUT` in `events`, or writable), or
    /// `deadline` passes. Level-triggered and armed for this one wait, so a library that left bytes unread is woken
    /// at once; the descriptor may change between waits (libpq tries another address). Call `forgetOnce` before
    /// the descriptor is closed.
    package func waitOnce(for fd: Int32, events: UInt32, deadline: UInt64) async -> Readiness {
        await withUnsafeContinuation { continuation in
            let wanted = events | EPOLLIN.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue
            let added = state.withLock { state -> (isNew: Bool, wake: Bool)? in
                guard !state.stopped else { return nil }
                state.waiters[fd] = Waiter(continuation: continuation, deadline: deadline, idle: false, events: wanted)
                return (state.oneShot.insert(fd).inserted, state.lowerWaiterDeadlineBound(to: deadline))
            }
            guard let (isNew, wake) = added else { return continuation.resume(returning: .shutdown) }
            if wake { wakeUp() }
            var event = epoll_event(events: wanted | EPOLLONESHOT.rawValue, data: epoll_data_t(fd: fd))
            // A number the kernel dropped from epoll when it was closed is added again, a reused one modified.
            var status = epoll_ctl(epfd, isNew ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event)
            if status != 0, errno == ENOENT || errno == EEXIST {
                status = epoll_ctl(epfd, errno == ENOENT ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event)
            }
            if status != 0, let waiter = take(fd) {
                waiter.continuation.resume(returning: .shutdown)
            }
        }
    }

    /// Stops watching a descriptor used with `waitOnce`; a task still waiting on it is resumed with `.shutdown`.
    package func forgetOnce(_ fd: Int32) {
        let waiter = state.withLock { state -> Waiter? in
            guard state.oneShot.remove(fd) != nil else { return nil }
            epoll_ctl(epfd, EPOLL_CTL_DEL, fd, nil)
            return state.waiters.removeValue(forKey: fd)
        }
        waiter?.continuation.resume(returning: .shutdown)
    }

    func take(_ fd: Int32) -> Waiter? {
        state.withLock { $0.waiters.removeValue(forKey: fd) }
    }

    /// Ends `run` after its current iteration.
    package func stop() {
        state.withLock { $0.stopped = true }
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }
}

/// A system call the loop needs failed while it was being set up.
package struct EventLoopError: Error, CustomStringConvertible {
    package var call: String
    package var errno: Int32

    init(_ call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    package var description: String { "\(call): \(String(cString: strerror(errno)))" }
}
