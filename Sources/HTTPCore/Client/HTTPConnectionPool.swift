import CryptoCore
import Glibc
import IOCore
import Synchronization

/// The keep-alive connections of one `HTTPClient` to one origin: carries out what `HTTPConnectionPoolState`
/// decides. Connections are opened on the event loop of the task that needs one, and every wait (for a
/// connection, a socket, a deadline) parks on a loop, so a thousand requests waiting here hold no thread.
final class HTTPConnectionPool: Sendable {
    let origin: HTTPClientOrigin
    private let configuration: HTTPClient.Configuration
    private let group: EventLoopGroup
    private let tls: HTTPClientTLS
    private let resolver: DNSResolver
    private let idleTimeout: UInt64
    /// The loop whose timer closes idle connections.
    private let sweepLoop: EventLoop
    private let state: Mutex<Shared>
    private let counters = Counters()

    /// What a waiting request is resumed with.
    private enum Handed {
        case connection(HTTPClientConnection)
        case connect
        case timedOut
    }

    private struct Shared {
        var machine: HTTPConnectionPoolState
        var connections: [HTTPConnectionPoolState.ConnectionID: HTTPClientConnection] = [:]
        var waiters: [HTTPConnectionPoolState.RequestID: (continuation: CheckedContinuation<Handed, Never>,
                                                          timer: EventLoop.TimerID, loop: EventLoop)] = [:]
        var nextID = 0
        /// The TLS session to offer the next connection.
        var session: TLSSession?
        /// When `closeIdle` last looked for idle connections the server closed (monotonic ns).
        var lastHangUpScan: UInt64 = 0
        /// The timer that runs `closeIdle`, armed while a connection is idle.
        var idleSweep: EventLoop.TimerID?
        var closed = false
        /// `abort()` came: no connection is opened or used any more.
        var aborted = false
    }

    private final class Counters: Sendable {
        let opened = Atomic<Int>(0)
        let resumed = Atomic<Int>(0)
        let reused = Atomic<Int>(0)
    }

    init(origin: HTTPClientOrigin, configuration: HTTPClient.Configuration, group: EventLoopGroup, tls: HTTPClientTLS,
         resolver: DNSResolver) {
        self.origin = origin
        self.configuration = configuration
        self.group = group
        self.tls = tls
        self.resolver = resolver
        idleTimeout = MonotonicClock.nanoseconds(configuration.idleTimeout)
        state = Mutex(Shared(machine: HTTPConnectionPoolState(maxConnections: configuration.maxConnectionsPerOrigin)))
        sweepLoop = group.next()
    }

    /// The pool's gauges and counters.
    var statistics: HTTPClientStatistics {
        let (open, idle, waiting) = state.withLock { ($0.machine.open, $0.machine.idle.count, $0.machine.waiting.count) }
        return HTTPClientStatistics(open: open, idle: idle, waiting: waiting,
                                    opened: counters.opened.load(ordering: .relaxed),
                                    resumedTLS: counters.resumed.load(ordering: .relaxed),
                                    reused: counters.reused.load(ordering: .relaxed))
    }

    /// The least time a call must have left for its request to be sent: a round trip to Apple takes tens of
    /// milliseconds, so one sent with less would time out after Apple acted on it. Found by an audit: when many
    /// calls timed out together, a waiting one took a freed connection at its deadline and sent its code.
    static let minimumTimeToSend: Duration = .milliseconds(100)

    /// Sends one request and reads its response before `deadline` (monotonic ns). A request that failed on a
    /// reused connection before any byte of it was written is sent once more on a new connection; one that was
    /// (even partly) written is never sent again; one left less than `minimumTimeToSend` is not sent at all.
    func execute(_ bytes: [UInt8], method: HTTPMethod, deadline: UInt64) async throws -> HTTPClientResponse {
        var retried = false
        while true {
            let (connection, reused) = try await lease(deadline: deadline)
            // A request is not sent with less than `minimumTimeToSend` of its call left: it would time out after
            // the server acted on it (an authorization code spent, and the user's retry refused as used).
            guard hasTimeToSend(before: deadline) else {
                giveBack(connection, reusable: true)
                throw timeRanOut
            }
            connection.beginRequest()
            do {
                try await connection.write(bytes, until: deadline)
                var reader = HTTPClientResponseReader(transport: connection, deadline: deadline,
                                                      configuration: configuration)
                let response = try await reader.readResponse(method: method)
                if origin.scheme == .https, connection.requestCount == 1, let session = connection.resumableSession {
                    state.withLock { $0.session = session }
                }
                giveBack(connection, reusable: reader.keepsConnection)
                return response
            } catch {
                giveBack(connection, reusable: false)
                let timedOut = (error as? HTTPClientError)?.kind == .readTimeout
                guard reused, !retried, !timedOut, connection.bytesWritten == 0 else { throw error }
                retried = true
            }
        }
    }

    /// Whether a call ending at `deadline` has `minimumTimeToSend` left.
    private func hasTimeToSend(before deadline: UInt64) -> Bool {
        MonotonicClock.deadline(after: Self.minimumTimeToSend) < deadline
    }

    private var timeRanOut: HTTPClientError {
        HTTPClientError(.poolTimeout, "the call's time ran out before its request to \(origin) was sent")
    }

    /// A connection for one request: an idle one the server has not closed, a new one, or the next one given back.
    private func lease(deadline: UInt64) async throws -> (HTTPClientConnection, reused: Bool) {
        // A connection or a free slot is taken without suspending the task; only a request that must wait parks.
        let handed: Handed
        let current = group.current
        let here = current?.index
        if let immediate = state.withLock({ shared in
            shared.machine.canLeaseAtOnce ? Self.lease(&shared, on: here) : nil
        }) {
            handed = immediate
        } else {
            let loop = current ?? group.next()
            handed = await withCheckedContinuation { continuation in
                let immediate = state.withLock { shared -> Handed? in
                    if let handed = Self.lease(&shared, on: here) { return handed }
                    let request = shared.nextID
                    let timer = loop.schedule(at: deadline) { [weak self] in self?.expire(request) }
                    shared.waiters[request] = (continuation, timer, loop)
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        }
        switch handed {
        case .connection(let connection):
            guard connection.isReusable else {
                state.withLock { shared in
                    let id = ObjectIdentifier(connection).hashValue
                    shared.connections[id] = nil
                    shared.machine.replaceLeased(id)
                }
                return (try await open(deadline: deadline), false)
            }
            counters.reused.add(1, ordering: .relaxed)
            return (connection, true)
        case .connect:
            return (try await open(deadline: deadline), false)
        case .timedOut:
            // Woken before its deadline: the loop stopped and fired every timer (`EventLoop.endEveryWait`), the
            // process shutting down. Found by a black-box review: such calls were blamed on Apple as timeouts.
            guard MonotonicClock.now() >= deadline else {
                throw HTTPClientError(.loopStopped, "the event loop stopped while the call waited for a connection")
            }
            throw HTTPClientError(.poolTimeout, "no connection to \(origin) became free in time "
                + "(\(configuration.maxConnectionsPerOrigin) in use)")
        }
    }

    /// Asks the state machine for a connection for a new request whose task runs on loop `loop`: the connection
    /// or `.connect`, or nil when the request now waits in line (as request `shared.nextID`).
    private static func lease(_ shared: inout Shared, on loop: Int?) -> Handed? {
        shared.nextID += 1
        switch shared.machine.lease(shared.nextID, on: loop) {
        case .use(let id):
            if let connection = shared.connections[id] { return .connection(connection) }
            shared.machine.replaceLeased(id)
            return .connect
        case .connect:
            return .connect
        case .wait:
            return nil
        }
    }

    /// A waiting request's deadline passed.
    private func expire(_ request: Int) {
        let continuation = state.withLock { shared -> CheckedContinuation<Handed, Never>? in
            guard shared.machine.cancelWaiting(request) else { return nil }
            return shared.waiters.removeValue(forKey: request)?.continuation
        }
        continuation?.resume(returning: .timedOut)
    }

    /// Opens a connection in a slot already counted as connecting; frees the slot when it fails. A call left less
    /// than `minimumTimeToSend` opens none (it could not send on it): a waiter handed a slot at its deadline, as the
    /// calls before it time out together, would otherwise open a connection for nothing.
    private func open(deadline: UInt64) async throws -> HTTPClientConnection {
        do {
            guard hasTimeToSend(before: deadline) else { throw timeRanOut }
            guard !state.withLock({ $0.aborted }) else { throw HTTPClientError.clientStopped }
            let connectDeadline = min(deadline, MonotonicClock.deadline(after: configuration.connectTimeout))
            let loop = group.any()
            let addresses = try await resolver.resolve(host: origin.host, port: origin.port, deadline: connectDeadline,
                                                       loop: loop)
            var tlsSetup: (context: TLSClientContext, isIPAddress: Bool, session: TLSSession?)?
            if origin.scheme == .https {
                do {
                    tlsSetup = (try tls.context.get(), origin.isIPLiteral, state.withLock { $0.session })
                } catch {
                    throw HTTPClientError(.tlsHandshakeFailed, error.description)
                }
            }
            let connection = try await HTTPClientConnection.connect(
                to: origin.scheme == .http ? addresses.filter(\.isLoopback) : addresses, host: origin.host,
                port: origin.port, loop: loop, tls: tlsSetup, deadline: connectDeadline)
            guard !state.withLock({ $0.aborted }) else { throw HTTPClientError.clientStopped }
            counters.opened.add(1, ordering: .relaxed)
            if connection.isResumedTLS { counters.resumed.add(1, ordering: .relaxed) }
            state.withLock { shared in
                let id = ObjectIdentifier(connection).hashValue
                shared.connections[id] = connection
                shared.machine.connected(id)
            }
            return connection
        } catch {
            carryOut(state.withLock { $0.machine.connectFailed() })
            throw error
        }
    }

    /// A request is done with `connection`.
    private func giveBack(_ connection: HTTPClientConnection, reusable: Bool) {
        let id = ObjectIdentifier(connection).hashValue
        let next = state.withLock { shared -> HTTPConnectionPoolState.NextAction in
            let now = MonotonicClock.now()
            let next = shared.machine.release(id, reusable: reusable, now: now, loop: connection.loop.index)
            if !reusable { shared.connections[id] = nil }
            armIdleSweep(&shared, now: now)
            return next
        }
        carryOut(next)
    }

    private func carryOut(_ next: HTTPConnectionPoolState.NextAction) {
        switch next {
        case .none:
            return
        case .handOver(let id, let request):
            let (waiter, connection) = state.withLock { ($0.waiters.removeValue(forKey: request), $0.connections[id]) }
            guard let waiter else { return }
            waiter.loop.cancel(waiter.timer)
            if let connection {
                waiter.continuation.resume(returning: .connection(connection))
            } else {
                waiter.continuation.resume(returning: .connect)
            }
        case .connect(let request):
            let waiter = state.withLock { $0.waiters.removeValue(forKey: request) }
            guard let waiter else { return }
            waiter.loop.cancel(waiter.timer)
            waiter.continuation.resume(returning: .connect)
        }
    }

    /// How often `closeIdle` looks for idle connections the server has closed.
    static let hangUpScanInterval: Duration = .seconds(1)

    /// Arms the timer of `closeIdle` while a connection is idle, for the next hang-up scan or the first idle
    /// timeout, whichever comes first. With no idle connection nothing is armed, and an idle server's loop sleeps.
    private func armIdleSweep(_ shared: inout Shared, now: UInt64) {
        guard shared.idleSweep == nil, !shared.closed,
              let oldest = shared.machine.idle.lazy.map(\.since).min() else { return }
        let scan = max(now, shared.lastHangUpScan).addingReportingOverflow(
            MonotonicClock.nanoseconds(Self.hangUpScanInterval))
        let expiry = oldest.addingReportingOverflow(idleTimeout)
        let at = min(scan.overflow ? .max : scan.partialValue, expiry.overflow ? .max : expiry.partialValue)
        shared.idleSweep = sweepLoop.schedule(at: at) { [weak self] in self?.closeIdle() }
    }

    /// Closes the connections idle for `configuration.idleTimeout`, and, every `hangUpScanInterval`, those the
    /// server closed (or sent something unasked on) while they waited: otherwise each would sit half-closed
    /// (`CLOSE_WAIT`) and count as open until its idle timeout, although the next request would not use it. Runs
    /// on the sweep loop's timer; the check of each idle connection (`isReusable`, one `recv` that does not wait)
    /// runs outside the pool's lock.
    private func closeIdle() {
        let now = MonotonicClock.now()
        let scanned = state.withLock { shared -> [(id: HTTPConnectionPoolState.ConnectionID, HTTPClientConnection)] in
            shared.idleSweep = nil
            for id in shared.machine.expireIdle(now: now, idleTimeout: idleTimeout) { shared.connections[id] = nil }
            guard !shared.machine.idle.isEmpty,
                  MonotonicClock.elapsed(from: shared.lastHangUpScan, to: now)
                    >= MonotonicClock.nanoseconds(Self.hangUpScanInterval) else {
                armIdleSweep(&shared, now: now)
                return []
            }
            shared.lastHangUpScan = now
            return shared.machine.idle.compactMap { idle in shared.connections[idle.id].map { (idle.id, $0) } }
        }
        guard !scanned.isEmpty else { return }
        let closed = Set(scanned.filter { !$0.1.isReusable }.map(\.id))
        state.withLock { shared in
            for id in shared.machine.removeIdle(closed) { shared.connections[id] = nil }
            armIdleSweep(&shared, now: now)
        }
    }

    /// Shuts down the socket of every connection, idle or in use, so that a wait on one ends at once, wakes every
    /// call waiting for a connection, and opens none from now on (`HTTPClient.stop()`).
    func abort() {
        let (connections, waiters) = state.withLock { shared in
            shared.closed = true
            shared.aborted = true
            let waiters = shared.waiters
            shared.waiters = [:]
            for request in waiters.keys { _ = shared.machine.cancelWaiting(request) }
            return (Array(shared.connections.values), Array(waiters.values))
        }
        for connection in connections { shutdown(connection.fd, Int32(SHUT_RDWR)) }
        for waiter in waiters {
            waiter.loop.cancel(waiter.timer)
            waiter.continuation.resume(returning: .timedOut)
        }
    }

    /// Closes every idle connection and stops sweeping; requests in flight finish on theirs.
    func close() {
        let sweep = state.withLock { shared in
            shared.closed = true
            for id in shared.machine.removeAllIdle() { shared.connections[id] = nil }
            defer { shared.idleSweep = nil }
            return shared.idleSweep
        }
        if let sweep { sweepLoop.cancel(sweep) }
    }
}
