import Glibc
import IOCore
import Synchronization

/// An HTTP/1.1 client on the server's own event loop: keep-alive connections pooled per origin, TLS through
/// OpenSSL with sessions resumed, one deadline for the whole call.
///
/// Every wait (for a free connection, DNS, connect, TLS, the response) parks a task on an event loop, so requests
/// waiting on a slow server hold no thread. At most `maxConnectionsPerOrigin` connections go to one origin; more
/// requests wait in order. A request is sent again on a new connection only when it failed on a reused one before
/// any byte of it was written; one that was sent is never repeated. Redirects are never followed: a 3xx is
/// returned as is. Plain `http://` is allowed only to loopback hosts. Copies of a client share its pools.
package struct HTTPClient: Sendable {
    package let configuration: Configuration
    let tls: HTTPClientTLS
    private let pools: Pools

    /// A client whose connections wait on the process's default event loop.
    package init(configuration: Configuration = Configuration()) {
        self.init(configuration: configuration, group: .shared)
    }

    /// A client whose connections wait on `group`'s loops (each on the loop of the task that opened it).
    package init(configuration: Configuration, group: EventLoopGroup) {
        self.configuration = configuration
        tls = HTTPClientTLS(trustStoreFile: configuration.trustStoreFile, extraCAFile: configuration.extraCAFile)
        pools = Pools(group: group)
        _ = Self.ignoreBrokenPipe
    }

    /// Sends `request` and returns the complete response.
    /// - Parameter request: an absolute `https://` URL, or `http://` to 127.0.0.0/8, `::1` or `localhost`.
    /// - Throws: `HTTPClientError`; `insecureScheme` is thrown before any connection is made.
    ///
    /// Cancelling the calling task does not interrupt the exchange; `configuration.timeout` bounds it.
    package func send(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        guard !pools.isStopped else { throw HTTPClientError.clientStopped }
        do {
            return try await exchange(request)
        } catch where pools.isStopped {
            throw HTTPClientError.clientStopped
        }
    }

    private func exchange(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        let deadline = MonotonicClock.deadline(after: request.timeout ?? configuration.timeout)
        let url = try HTTPClientURL(parsing: request.url)
        if url.scheme == .http, !url.isLoopbackHost {
            throw HTTPClientError(.insecureScheme, "plain http is allowed only to loopback hosts")
        }
        var bytes = try Self.serializeHead(request, url: url, userAgent: configuration.userAgent,
                                           bodyCapacity: request.body.count)
        bytes.append(contentsOf: request.body)
        let pool = pools.pool(for: HTTPClientOrigin(url)) { origin, group in
            HTTPConnectionPool(origin: origin, configuration: configuration, group: group, tls: tls,
                               resolver: .shared)
        }
        // The exchange runs on a loop of the client's group (the caller's own when it is one): a socket that
        // becomes ready resumes it on the thread that saw it, with no hop to Swift's cooperative pool, whose few
        // threads may be busy with blocking work elsewhere in the process. A task that prefers that loop already
        // (a request handler on its connection's loop) goes on without a second preference record.
        let loop = pools.group.any()
        if withUnsafeCurrentTask(body: { $0?.unownedTaskExecutor }) == loop.asUnownedTaskExecutor() {
            return try await pool.execute(bytes, method: request.method, deadline: deadline)
        }
        return try await withTaskExecutorPreference(loop) {
            try await pool.execute(bytes, method: request.method, deadline: deadline)
        }
    }

    /// The pools' connections and waiting requests now, and what they have done so far.
    package var statistics: HTTPClientStatistics { pools.statistics }
    /// The loops this client's connections wait on (callers park their own timers there too).
    package var group: EventLoopGroup { pools.group }

    /// Closes every idle connection; requests in flight finish on theirs, and later ones open new connections.
    package func closeIdleConnections() { pools.closeIdle() }

    /// Ends the calls in flight, and every later one, with `loopStopped` ("the client stopped"): the sockets of its
    /// connections are shut down, so a wait on one ends at once, and calls waiting for a connection are woken. For a
    /// server's stop: work waiting on a slow server ends while the loops still serve everything else (PostgreSQL).
    package func stop() { pools.stop() }

    /// OpenSSL writes to the socket with `write(2)`, which raises SIGPIPE on a closed peer; a server ignores it.
    private static let ignoreBrokenPipe: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// One pool per origin, made on first use.
    private final class Pools: Sendable {
        let group: EventLoopGroup
        private let pools = Mutex<[HTTPClientOrigin: HTTPConnectionPool]>([:])
        private let stopped = Atomic<Bool>(false)

        init(group: EventLoopGroup) { self.group = group }

        deinit { closeIdle() }

        func pool(for origin: HTTPClientOrigin,
                  make: (HTTPClientOrigin, EventLoopGroup) -> HTTPConnectionPool) -> HTTPConnectionPool {
            pools.withLock { pools in
                if let pool = pools[origin] { return pool }
                let pool = make(origin, group)
                pools[origin] = pool
                return pool
            }
        }

        var statistics: HTTPClientStatistics {
            pools.withLock { $0.values.reduce(HTTPClientStatistics()) { $0 + $1.statistics } }
        }

        func closeIdle() {
            for pool in pools.withLock({ Array($0.values) }) { pool.close() }
        }

        var isStopped: Bool { stopped.load(ordering: .acquiring) }

        func stop() {
            stopped.store(true, ordering: .releasing)
            for pool in pools.withLock({ Array($0.values) }) { pool.abort() }
        }
    }
}
