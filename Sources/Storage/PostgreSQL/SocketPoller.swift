import CLinux
import Glibc
import Synchronization

/// One thread and one epoll instance that wait for the sockets of PostgreSQL connections, so that no task and no
/// request thread blocks while a query is on the wire: a connection parks its task here until its socket is
/// readable or writable (or a deadline passes), and the poller's thread resumes it.
///
/// Each wait is one-shot (`EPOLLONESHOT`): a socket is armed for one wait at a time, by the one task that owns its
/// connection.
final class SocketPoller: Sendable {
    enum Readiness: Sendable, Equatable { case ready, timedOut, closed }

    private struct Waiter {
        var continuation: CheckedContinuation<Readiness, Never>
        var deadline: UInt64
    }

    private struct State {
        var waiters: [Int32: Waiter] = [:]
        var registered: Set<Int32> = []
        var stopped = false
    }

    /// How often deadlines are checked, in milliseconds.
    static let sweepIntervalMilliseconds: Int32 = 50

    /// The epoll instance, its wake-up eventfd and the waiters: shared by the poller and its thread.
    private final class Core: Sendable {
        let epfd: Int32
        let wakeFD: Int32
        let state = Mutex(State())

        init() throws {
            epfd = epoll_create1(Int32(EPOLL_CLOEXEC))
            guard epfd >= 0 else { throw PostgresError.connection("epoll_create1 failed: errno \(errno)") }
            wakeFD = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
            // Every property is set from here on, so a throw runs `deinit`, which closes both.
            guard wakeFD >= 0 else { throw PostgresError.connection("eventfd failed: errno \(errno)") }
            var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(fd: wakeFD))
            epoll_ctl(epfd, EPOLL_CTL_ADD, wakeFD, &event)
        }

        deinit {
            close(wakeFD)
            close(epfd)
        }
    }

    private let core: Core
    private let thread = PollerThread()
    private var epfd: Int32 { core.epfd }

    init() throws {
        core = try Core()
        thread.start { [core] in Self.run(core) }
    }

    deinit {
        stop()
        thread.join()
    }

    /// Parks the calling task until `fd` is readable (or, with `writable`, writable), `deadline` (monotonic ns)
    /// passes, or the socket is forgotten.
    func wait(for fd: Int32, writable: Bool = false, deadline: UInt64) async -> Readiness {
        await withCheckedContinuation { continuation in
            let armed = core.state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.waiters[fd] = Waiter(continuation: continuation, deadline: deadline)
                return true
            }
            guard armed else { return continuation.resume(returning: .closed) }
            let wanted = (writable ? EPOLLOUT.rawValue : 0) | EPOLLIN.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue
            var event = epoll_event(events: wanted | EPOLLONESHOT.rawValue, data: epoll_data_t(fd: fd))
            let isNew = core.state.withLock { $0.registered.insert(fd).inserted }
            // libpq may replace a connection's socket while it connects (another address, another host): a
            // number the kernel dropped from epoll when it was closed is added again, a reused one modified.
            var status = epoll_ctl(epfd, isNew ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event)
            if status != 0, errno == ENOENT || errno == EEXIST {
                status = epoll_ctl(epfd, errno == ENOENT ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event)
            }
            if status != 0, let waiter = core.state.withLock({ $0.waiters.removeValue(forKey: fd) }) {
                waiter.continuation.resume(returning: .closed)
            }
        }
    }

    /// Stops watching `fd`; call before the connection closes it. A task still waiting is resumed with `.closed`.
    func forget(_ fd: Int32) {
        let waiter = core.state.withLock { state -> Waiter? in
            guard state.registered.remove(fd) != nil else { return nil }
            epoll_ctl(epfd, EPOLL_CTL_DEL, fd, nil)
            return state.waiters.removeValue(forKey: fd)
        }
        waiter?.continuation.resume(returning: .closed)
    }

    private func stop() {
        core.state.withLock { $0.stopped = true }
        var one: UInt64 = 1
        _ = write(core.wakeFD, &one, 8)
    }

    private static func run(_ core: Core) {
        let (epfd, wakeFD) = (core.epfd, core.wakeFD)
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        while true {
            let count = events.withUnsafeMutableBufferPointer {
                epoll_wait(epfd, $0.baseAddress, Int32($0.count), sweepIntervalMilliseconds)
            }
            var ready: [CheckedContinuation<Readiness, Never>] = []
            var expired: [CheckedContinuation<Readiness, Never>] = []
            let stopped = core.state.withLock { state -> Bool in
                for index in 0..<max(Int(count), 0) where events[index].data.fd != wakeFD {
                    if let waiter = state.waiters.removeValue(forKey: events[index].data.fd) {
                        ready.append(waiter.continuation)
                    }
                }
                let now = MonotonicTime.now()
                for (fd, waiter) in state.waiters where waiter.deadline <= now {
                    expired.append(waiter.continuation)
                    state.waiters[fd] = nil
                }
                if state.stopped {
                    expired += state.waiters.values.map(\.continuation)
                    state.waiters = [:]
                }
                return state.stopped
            }
            ready.forEach { $0.resume(returning: .ready) }
            expired.forEach { $0.resume(returning: stopped ? .closed : .timedOut) }
            if stopped { return }
        }
    }
}
