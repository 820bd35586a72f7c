import CryptoCore
import Glibc
import IOCore
import Logging
import Synchronization

/// An HTTP/1.1 server (RFC 9112) on non-blocking sockets, served by the loops of an `EventLoopGroup`: its own,
/// one loop per usable core, or one it is given and shares with the process's other sockets.
///
/// ```swift
/// let server = HTTPServer(configuration: .init(port: 0), responder: app, logger: logger)
/// try server.start()
/// print(server.localPort)
/// try await server.run()   // returns after `shutdown()`
/// ```
package final class HTTPServer: Sendable {
    package let configuration: HTTPServerConfiguration
    private let responder: any HTTPResponder
    let logger: Logger
    /// The loops given at `init`; nil: the server starts its own and stops them at `shutdown()`.
    private let sharedGroup: EventLoopGroup?
    private let state = Mutex(State())

    private struct State {
        var acceptor: ConnectionAcceptor?
        /// The group the server started itself.
        var ownGroup: EventLoopGroup?
        var port = 0
        var finished = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// - Parameters:
    ///   - configuration: address, loops, limits, TLS.
    ///   - responder: called once per request, on the loop thread of the connection (it must not block).
    ///   - logger: gets one access line per request at `info`, and warnings.
    package init(configuration: HTTPServerConfiguration, responder: any HTTPResponder, logger: Logger) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
        sharedGroup = nil
    }

    /// A server on `group`'s loops (`configuration.loopCount` is then unused); the group outlives the server.
    package init(configuration: HTTPServerConfiguration, responder: any HTTPResponder, logger: Logger,
                 group: EventLoopGroup) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
        sharedGroup = group
    }

    /// Binds `hostname:port` as `start()` would, without listening, then lets it go: a process that must not make
    /// anything (a database, a key) before it knows it can listen checks first. Nothing can connect meanwhile, so a
    /// probe waiting for the port does not take the check for the server (found with `Benchmarks/cpu`: its client
    /// connected to the check's socket, then met a refused connection while the server migrated). A port taken
    /// between this and `start()` still fails there.
    /// - Returns: the port bound: `port`, or for 0 one the system picked, free a moment ago.
    /// - Throws: `SocketError` from `getaddrinfo` (the name does not resolve) or `bind` (in use, not this machine's).
    @discardableResult
    package static func checkAddress(hostname: String, port: Int) throws -> Int {
        try Listener(host: hostname, port: port, listening: false).port
    }

    /// Binds, listens and starts the loop threads; returns at once. Calling it again does nothing.
    package func start() throws {
        try state.withLock { state in
            guard state.acceptor == nil, !state.finished else { return }
            signal(SIGPIPE, SIG_IGN)  // OpenSSL writes with write(2): a vanished peer must not kill the process
            LargeBlocks.returnToTheSystemWhenFreed()
            var tls: TLSContextSlot?
            if let files = configuration.tls { tls = TLSContextSlot(try Self.loadTLS(files)) }
            let listener = try Listener(host: configuration.hostname, port: configuration.port)
            let group = try sharedGroup ?? EventLoopGroup(loopCount: configuration.loopCount ?? CPUCount.usable)
            if sharedGroup == nil { state.ownGroup = group }
            let loops = group.loops
            let count = loops.count
            let softLimit = DescriptorLimit.raiseSoftLimit()
            let cap = DescriptorLimit.connectionCap(configured: configuration.limits.maxConnections,
                                                    softLimit: softLimit)
            if cap < configuration.limits.maxConnections {
                logger.notice("connection limit lowered to fit the open-file limit", metadata: [
                    "maxConnections": "\(cap)", "RLIMIT_NOFILE": "\(softLimit)",
                ])
            }
            let acceptor = ConnectionAcceptor(limits: configuration.limits, maxConnections: cap, responder: responder,
                                              logger: logger, accessLog: configuration.accessLog,
                                              errorHeaders: configuration.errorHeaders, tls: tls, loops: loops,
                                              listener: listener)
            for watcher in acceptor.listeners { watcher.start(acceptor: acceptor) }
            state.acceptor = acceptor
            state.port = listener.port
            logger.notice("HTTP server listening", metadata: [
                "address": "\(configuration.hostname)", "port": "\(listener.port)", "loops": "\(count)",
                "tls": "\(tls != nil)",
            ])
        }
    }

    /// Reads the files of `configuration.tls` again and serves every connection accepted from now on with them (a
    /// renewed certificate); connections already open keep the certificate they began with. When a file does not
    /// load, the server goes on with the files it had. Reads files: call it off the event loops.
    /// - Returns: the context now served (its certificate's end), nil when the server has no TLS or is not running.
    /// - Throws: `TLSServerContext.FileError` naming the file that failed.
    @discardableResult
    package func reloadTLS() throws -> TLSServerContext? {
        EventLoop.assertNotInEventLoop()
        guard let files = configuration.tls, let slot = acceptor?.tls else { return nil }
        let context = try Self.loadTLS(files)
        slot.replace(with: context)
        return context
    }

    private static func loadTLS(_ files: TLSServerConfiguration) throws -> TLSServerContext {
        try TLSServerContext(certificateChainPath: files.certificatePath, privateKeyPath: files.privateKeyPath)
    }

    /// Connections open now (accepted and not yet closed); 0 before `start()` and after `shutdown()`.
    package var openConnections: Int { state.withLock { $0.acceptor?.activeConnections ?? 0 } }

    /// Connections accepted since `start()`; 0 before it and after `shutdown()`.
    package var acceptedConnections: Int { state.withLock { $0.acceptor?.acceptedConnections ?? 0 } }

    /// Connections closed unread since `start()` because their address held `maxConnectionsPerAddress` already.
    package var refusedConnections: Int { state.withLock { $0.acceptor?.refusedConnections ?? 0 } }

    /// Idle connections closed since `start()` at `maxConnections` so that a waiting one could be accepted.
    package var idleConnectionsClosedAtLimit: Int {
        state.withLock { $0.acceptor?.idleConnectionsClosedAtLimit ?? 0 }
    }

    /// Bytes held now by request bodies still being read (`BodyBytesGauge`); 0 before `start()` and after
    /// `shutdown()`.
    package var bufferedBodyBytes: Int { state.withLock { $0.acceptor?.bodyBytes.value ?? 0 } }

    /// The bound port (the one chosen by the system when configured with 0); 0 before `start()`.
    package var localPort: Int { state.withLock { $0.port } }

    /// What the running server shares between its connections (counters, limits); nil before `start()`.
    var acceptor: ConnectionAcceptor? { state.withLock { $0.acceptor } }

    /// Whether `shutdown()` has begun (or finished).
    var isShuttingDown: Bool { state.withLock { $0.acceptor?.isShuttingDown ?? $0.finished } }

    /// Starts if needed, then waits until the server has shut down.
    package func run() async throws {
        try start()
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                if state.finished { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Graceful shutdown: closes the listener (new connections are refused), lets in-flight requests finish and be
    /// answered with `Connection: close` for up to `configuration.shutdownGracePeriod`, gives idle keep-alive connections
    /// `configuration.drainIdleTimeout` for a request already on its way, closes whatever is still open when the grace
    /// period ends, stops the loop threads, then returns. Safe to call more than once.
    package func shutdown() async {
        let acceptor = state.withLock { $0.acceptor }
        if let acceptor {
            let left = await acceptor.shutdown(gracePeriod: configuration.shutdownGracePeriod,
                                              drainIdleTimeout: configuration.drainIdleTimeout)
            if left > 0 {
                logger.warning("shutdown grace period over; closing connections still open", metadata: [
                    "connections": "\(left)", "gracePeriod": "\(configuration.shutdownGracePeriod)",
                ])
            }
        }
        let (ownGroup, waiters) = state.withLock { state in
            state.finished = true
            state.acceptor = nil
            defer {
                state.ownGroup = nil
                state.waiters = []
            }
            return (state.ownGroup, state.waiters)
        }
        ownGroup?.shutdown()
        for waiter in waiters { waiter.resume() }
        logger.notice("HTTP server stopped")
    }
}
