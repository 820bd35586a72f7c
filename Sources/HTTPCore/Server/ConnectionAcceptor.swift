import CryptoCore
import CLinux
import Dispatch
import Glibc
import IOCore
import Logging
import Synchronization

/// What every connection of one server shares: limits, responder, TLS context, counters. Accepts on the loops.
final class ConnectionAcceptor: Sendable {
    let limits: HTTPLimits
    /// `limits.maxConnections`, lowered when the descriptor limit would not leave room (`DescriptorLimit`).
    let maxConnections: Int
    let responder: any HTTPResponder
    let logger: Logger
    /// Whether answered requests get an access line (`HTTPServerConfiguration.accessLog`).
    let accessLog: Bool
    /// Fields of the answers the server writes itself (`HTTPServerConfiguration.errorHeaders`).
    let errorHeaders: HTTPHeaders
    /// The TLS context new connections start with; nil: plain HTTP.
    let tls: TLSContextSlot?
    let dateCache = DateCache()
    /// The listener as each loop watches it.
    let listeners: [ListenerOnLoop]
    let perAddress: AddressConnectionCounter
    /// Bytes held by the request bodies being read on every connection.
    let bodyBytes = BodyBytesGauge()
    private let listener: Listener
    private let active = Atomic<Int>(0)
    private let accepted = Atomic<Int>(0)
    private let refused = Atomic<Int>(0)
    private let shuttingDown = Atomic<Bool>(false)
    /// Whether `accept` ran out of descriptors or memory and no connection has been accepted since: the warning
    /// is logged once per such spell, not at every retry.
    private let outOfDescriptors = Atomic<Bool>(false)
    private let closedForWaiting = Atomic<Int>(0)
    /// When the last notice of idle connections closed at the limit was logged (monotonic ns; 0: never).
    private let lastAtLimitNotice = Atomic<UInt64>(0)
    private let drained = Mutex<[CheckedContinuation<Void, Never>]>([])

    /// Pause accepting for this long after `EMFILE`/`ENFILE` when no connection of ours closes first.
    static let descriptorRetryDelay: UInt64 = 100_000_000
    /// At the connection limit, how often each loop looks for connections waiting in the backlog (ns).
    static let atLimitCheckInterval: UInt64 = 100_000_000
    /// At the limit, with a connection waiting, each loop closes at most this many of its idle connections at a
    /// time, the longest idle first (as nginx reuses idle keep-alive connections when it runs out of them).
    static let idleConnectionsClosedForWaiting = 16
    /// Only a connection idle for at least this long is closed for a waiting one: a client that just had an answer
    /// is likely to send its next request at once.
    static let minimumIdleBeforeClosedForWaiting = Duration.seconds(1)

    init(limits: HTTPLimits, maxConnections: Int, responder: any HTTPResponder, logger: Logger,
         accessLog: Bool = true, errorHeaders: HTTPHeaders = [:], tls: TLSContextSlot?, loops: [EventLoop],
         listener: Listener) {
        listeners = loops.map { ListenerOnLoop(loop: $0, listener: listener) }
        self.limits = limits
        self.maxConnections = maxConnections
        self.responder = responder
        self.logger = logger
        self.accessLog = accessLog
        self.errorHeaders = errorHeaders
        self.tls = tls
        self.listener = listener
        perAddress = AddressConnectionCounter(limit: limits.maxConnectionsPerAddress,
                                              exemptLoopback: limits.exemptLoopback)
    }

    var activeConnections: Int { active.load(ordering: .relaxed) }
    var acceptedConnections: Int { accepted.load(ordering: .relaxed) }
    /// Connections closed unread because their address was at `maxConnectionsPerAddress`.
    var refusedConnections: Int { refused.load(ordering: .relaxed) }
    /// Idle connections closed at the limit so that connections waiting in the backlog could be accepted.
    var idleConnectionsClosedAtLimit: Int { closedForWaiting.load(ordering: .relaxed) }
    var hasCapacity: Bool { active.load(ordering: .relaxed) < maxConnections }
    var isShuttingDown: Bool { shuttingDown.load(ordering: .sequentiallyConsistent) }

    /// Accepts until the backlog is empty, the limit is reached, or descriptors run out (then pauses the listener).
    /// `emptyingBacklog` (at shutdown) accepts past the limit: what waits in the backlog is at most its length,
    /// and each connection is answered once with `Connection: close`.
    func acceptConnections(on watcher: ListenerOnLoop, emptyingBacklog: Bool = false) {
        let (loop, listener) = (watcher.loop, watcher.listener)
        while true {
            guard hasCapacity || emptyingBacklog else {
                watcher.pause(retryAfter: Self.atLimitCheckInterval)
                if hasCapacity { watcher.resume(acceptor: self) } else { makeRoom(on: watcher) }
                return
            }
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    accept4(listener.fd, $0, &length, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
                }
            }
            if fd < 0 {
                switch errno {
                case EINTR, ECONNABORTED, EPROTO, EPERM: continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    let code = errno
                    if !outOfDescriptors.exchange(true, ordering: .relaxed) {
                        logger.warning("accept: out of descriptors or memory; pausing, and retrying every 100 ms",
                                       metadata: ["errno": "\(code)"])
                    }
                    watcher.pause(retryAfter: Self.descriptorRetryDelay)
                    return
                default: return
                }
            }
            if outOfDescriptors.load(ordering: .relaxed), outOfDescriptors.exchange(false, ordering: .relaxed) {
                logger.notice("accept: accepting connections again")
            }
            let counted: AddressPrefix?
            switch perAddress.admit(perAddress.limit > 0 ? AddressPrefix(address) : nil) {
            case .uncounted: counted = nil
            case .counted(let prefix): counted = prefix
            case .refused(let prefix):
                refused.wrappingAdd(1, ordering: .relaxed)
                close(fd)
                perAddress.logRefusal(of: prefix, logger: logger)
                continue
            }
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            serve(fd, on: loop, peer: SocketAddress(address).description, countedAs: counted)
        }
    }

    /// The paused listener's timer at the limit: makes room when a connection waits, then looks again later.
    func stillAtLimit(_ watcher: ListenerOnLoop) {
        guard !isShuttingDown else { return }
        makeRoom(on: watcher)
        watcher.retry(after: Self.atLimitCheckInterval)
    }

    /// At the limit, while a connection waits in the backlog: closes the longest idle of `watcher`'s loop's
    /// connections (no request under way for `minimumIdleBeforeClosedForWaiting` or more), up to
    /// `idleConnectionsClosedForWaiting`, and the listener accepts as they close. Found by a black-box review:
    /// connections that sent nothing, or sat idle between requests, held every slot until their 60 s idle timeout,
    /// and new ones (`/health` among them) waited in the backlog behind them. Connections with a request under way
    /// are never closed for it.
    private func makeRoom(on watcher: ListenerOnLoop) {
        let waiting = Self.connectionsWaiting(on: watcher.listener.fd)
        guard waiting > 0 else { return }
        let now = MonotonicClock.now()
        let idleBefore = now - min(now, Self.minimumIdleBeforeClosedForWaiting.nanoseconds)
        // Each loop's timer sees the whole backlog: each closes its share of it.
        let share = (waiting + listeners.count - 1) / listeners.count
        let closed = watcher.loop.endIdleWaits(idleBefore: idleBefore,
                                               upTo: min(share, Self.idleConnectionsClosedForWaiting))
        guard closed > 0 else { return }
        closedForWaiting.wrappingAdd(closed, ordering: .relaxed)
        let last = lastAtLimitNotice.load(ordering: .relaxed)
        if last == 0 || now - last >= Self.atLimitNoticeInterval,
           lastAtLimitNotice.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged {
            logger.notice("at the connection limit: closing idle connections for new ones",
                          metadata: ["max_connections": "\(maxConnections)"])
        }
    }

    /// Connections waiting in the listening socket's accept queue: the kernel's count for a TCP listener
    /// (`tcpi_unacked` of `TCP_INFO` in the listening state, as `ss` shows it in Recv-Q), else 1 when it is readable.
    static func connectionsWaiting(on listener: Int32) -> Int {
        var info = tcp_info()
        var length = socklen_t(MemoryLayout<tcp_info>.size)
        let filled = MemoryLayout<tcp_info>.offset(of: \.tcpi_unacked).map { $0 + 4 } ?? MemoryLayout<tcp_info>.size
        if getsockopt(listener, Int32(IPPROTO_TCP), TCP_INFO, &info, &length) == 0, Int(length) >= filled {
            return Int(info.tcpi_unacked)
        }
        var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 1 && entry.revents & Int16(POLLIN) != 0 ? 1 : 0
    }

    /// The notice of idle connections closed at the limit is logged at most once in this long (ns).
    static let atLimitNoticeInterval: UInt64 = 60_000_000_000

    /// Serves a connected, non-blocking stream socket on `loop` as one of this server's connections, until it
    /// closes it. Tests hand it one end of a socketpair, whose writes reach the loop at once.
    func serve(_ fd: Int32, on loop: EventLoop, peer: String, countedAs prefix: AddressPrefix?) {
        active.add(1, ordering: .relaxed)
        accepted.wrappingAdd(1, ordering: .relaxed)
        let connection = Connection(fd: fd, loop: loop, acceptor: self, peer: peer, countedAs: prefix)
        Task(executorPreference: loop) { await connection.run() }
    }

    /// Called once by every connection after it closed its descriptor, with the address it was counted under.
    func connectionClosed(countedAs prefix: AddressPrefix?) {
        if let prefix { perAddress.release(prefix) }
        let remaining = active.subtract(1, ordering: .sequentiallyConsistent).newValue
        if remaining == 0, shuttingDown.load(ordering: .sequentiallyConsistent) { resumeDrainWaiters() }
        if remaining < maxConnections, !shuttingDown.load(ordering: .sequentiallyConsistent) {
            for watcher in listeners where watcher.isPaused { watcher.resume(acceptor: self) }
        }
    }

    /// Stops accepting, lets requests in flight finish, and returns once every connection has closed or the grace
    /// period is over; then closes what is left. Connections already queued in the listener's backlog are
    /// accepted and served first: closing the listener over them would reset requests a client has sent.
    /// - Parameters:
    ///   - gracePeriod: how long requests in flight have (`HTTPServerConfiguration.shutdownGracePeriod`).
    ///   - drainIdleTimeout: how long idle connections stay open (`HTTPServerConfiguration.drainIdleTimeout`).
    /// - Returns: the connections still open when the grace period ended (0 when all finished in time).
    func shutdown(gracePeriod: Duration, drainIdleTimeout: Duration) async -> Int {
        shuttingDown.store(true, ordering: .sequentiallyConsistent)
        let now = MonotonicClock.now()
        for watcher in listeners { watcher.beginShutdown(idleDeadline: now + drainIdleTimeout.nanoseconds) }
        if let watcher = listeners.first { acceptConnections(on: watcher, emptyingBacklog: true) }
        listener.stopListening()
        let graceEnds = DispatchTime.now() + .nanoseconds(Int(clamping: gracePeriod.nanoseconds))
        let graceTimer = DispatchWorkItem { [weak self] in self?.resumeDrainWaiters() }
        DispatchQueue.global().asyncAfter(deadline: graceEnds, execute: graceTimer)
        defer { graceTimer.cancel() }
        await withCheckedContinuation { continuation in
            let done = drained.withLock { waiting -> Bool in
                if active.load(ordering: .sequentiallyConsistent) == 0 { return true }
                waiting.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
        let left = active.load(ordering: .sequentiallyConsistent)
        if left > 0 {
            for watcher in listeners { watcher.loop.closeDrainingSockets() }
        }
        return left
    }

    private func resumeDrainWaiters() {
        let waiting = drained.withLock { waiting in
            defer { waiting.removeAll() }
            return waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}
