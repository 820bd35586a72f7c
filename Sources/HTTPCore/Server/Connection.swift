import CryptoCore
import Glibc
import IOCore
import Logging

/// One accepted socket and the task that serves it: reads, parses, calls the responder, writes, in order.
///
/// The connection is confined to its own task; it parks on its `EventLoop` only while the socket would block.
/// Requests are handled one at a time, so pipelined requests are answered in order and a client that sends
/// faster than it is served is held back by TCP flow control.
final class Connection {
    enum NextRequest {
        case request(HTTPRequestHead)
        case failed(HTTPParseError)
        case close
    }

    let fd: Int32
    let loop: EventLoop
    let acceptor: ConnectionAcceptor
    let info: ConnectionInfo
    /// The address this connection counts against `maxConnectionsPerAddress`; nil when uncounted.
    let countedAs: AddressPrefix?
    var tls: TLSConnection?
    /// The last read returned fewer bytes than asked (or EAGAIN): with edge-triggered epoll, parking is safe.
    var drained = false
    /// What this connection may still read before the loop polls its other sockets.
    var budget = ReadBudget()
    var tlsWantsWrite = false
    var open = true
    /// `output` holds answers kept back for the next pipelined one's (`send`): unless a flush begins first, they
    /// go out when the loop is idle, or a moment later (`sendHeldOutput`).
    var holdingOutput = false
    let input = ReadBuffer(capacity: Connection.initialReadCapacity)
    var output: [UInt8] = []
    var parser: HTTPRequestParser
    /// When the first byte of the request being read arrived (monotonic ns); for `headerTimeout`. Reset while the
    /// connection is idle, so an empty line between requests (RFC 9112 §2.2) does not start the next one's timer.
    var requestStarted: UInt64 = 0
    /// When the body being read began (monotonic ns) and the bytes received since; for `minimumBodyRate`.
    var bodyStarted: UInt64 = 0
    var bodyReceived = 0

    static let initialReadCapacity = 4096
    static let minimumRead = 2048

    init(fd: Int32, loop: EventLoop, acceptor: ConnectionAcceptor, peer: String, countedAs: AddressPrefix?) {
        self.fd = fd
        self.countedAs = countedAs
        self.loop = loop
        self.acceptor = acceptor
        info = ConnectionInfo(remoteAddress: peer, isSecure: acceptor.tls != nil)
        parser = HTTPRequestParser(limits: acceptor.limits, gauge: acceptor.bodyBytes)
        output.reserveCapacity(1024)
    }

    /// Serves requests until the peer closes, an error, a timeout, or shutdown; then closes the socket.
    func run() async {
        defer {
            holdingOutput = false  // a pending end-of-iteration send must not write to a descriptor closed here
            open = false
            parser.discardBody()
            tls?.shutdown()
            loop.deregister(fd)
            close(fd)
            acceptor.connectionClosed(countedAs: countedAs)
        }
        guard loop.register(fd, drains: true) else { return }
        if let slot = acceptor.tls {
            do {
                tls = try slot.current.makeConnection(fd: fd)
            } catch {
                acceptor.logger.debug("TLS setup failed", metadata: ["error": "\(error)"])
                return
            }
            guard await handshake() else { return }
        }
        var waitFirst = false
        while true {
            switch await nextRequest(waitFirst: waitFirst) {
            case .close:
                _ = await flush()
                return
            case .failed(let error):
                let toHead = failedRequestIsHead()
                parser.discardBody()
                writeError(error.status, reason: error.reason.rawValue, version: .http1_1, toHead: toHead)
                logRefusal(error.status, reason: error.reason.rawValue)
                if await flush() { await lingeringClose() }
                return
            case .request(let head) where head.request.method == .CONNECT:
                writeError(.notImplemented, reason: Self.connectRefusal, version: head.request.version)
                logRefusal(.notImplemented, reason: Self.connectRefusal)
                // Lingering, as every other close: closing at once while the client still sends would reset the
                // connection and could discard the answer before the client read it (RFC 9112 §9.6). Found by a
                // review.
                if await flush() { await lingeringClose() }
                return
            case .request(let head):
                let started = MonotonicClock.now()
                let response = await respond(to: head.request)
                let keepAlive = head.keepAlive && !acceptor.isShuttingDown
                guard let kept = await send(response, for: head, keepAlive: keepAlive) else { return }
                logAccess(head.request, status: response.status, started: started)
                guard kept else {
                    if await flush(), input.readableCount > 0 || !drained { await lingeringClose() }
                    return
                }
                input.shrinkIfIdle(to: Self.initialReadCapacity)
                waitFirst = input.readableCount == 0 && tls == nil && drained
            }
        }
    }

    /// Whether the request the parser failed on is a HEAD. Not inlined: the parser it reads would otherwise be copied
    /// into `run()`'s async frame, which every connection holds for its whole life (1.1 KB more per idle
    /// connection, measured).
    @inline(never)
    private func failedRequestIsHead() -> Bool { parser.isReadingHeadRequest(in: input) }

    /// Reads until the parser yields a complete request. `waitFirst` skips a read that would only say EAGAIN.
    /// A short read counts as drained: edge-triggered epoll reports any byte that arrives after it.
    func nextRequest(waitFirst: Bool) async -> NextRequest {
        var skipRead = waitFirst
        // When the connection fell idle: empty lines between requests (RFC 9112 §2.2) are ignored, and do not move
        // the idle deadline. Found by an audit: a CRLF every 50 s held a connection open for good.
        var idleSince: UInt64 = 0
        while true {
            if !skipRead {
                do {
                    switch try parser.next(input) {
                    case .request(let head):
                        requestStarted = 0
                        return .request(head)
                    case .head(let head):
                        bodyStarted = MonotonicClock.now()
                        bodyReceived = input.readableCount
                        if head.expectsContinue, input.readableCount == 0 {
                            output.append(contentsOf: Self.continueLine)
                        }
                        continue
                    case .needMore:
                        break
                    }
                } catch {
                    return .failed(error)
                }
                if !output.isEmpty, !(await flush()) { return .close }
                if requestStarted == 0, !parser.isBetweenRequests || input.readableCount > 0 {
                    requestStarted = MonotonicClock.now()
                }
            }
            let idle = parser.isBetweenRequests && input.readableCount == 0
            if !skipRead && !(drained && tls == nil) {
                switch await receiveWithinBudget() {
                case .transferred(let count):
                    if parser.isReadingBody { bodyReceived += count }
                    if requestStarted == 0 { requestStarted = MonotonicClock.now() }
                    continue
                case .closed:
                    return .close
                case .wouldBlock:
                    drained = true
                }
            }
            skipRead = false
            let deadline: UInt64
            let limits = acceptor.limits
            if idle {
                requestStarted = 0
                input.releaseIfEmpty()
                if output.isEmpty { output = [] }
                if idleSince == 0 { idleSince = MonotonicClock.now() }
                deadline = idleSince + limits.idleTimeout.nanoseconds
            } else if parser.isReadingBody {
                let now = MonotonicClock.now()
                let bodyDeadline = limits.bodyDeadline(start: bodyStarted, received: bodyReceived)
                guard now < bodyDeadline else { return .failed(HTTPParseError(.timeout)) }
                deadline = min(now + limits.bodyReadTimeout.nanoseconds, bodyDeadline)
            } else {
                deadline = requestStarted + limits.headerTimeout.nanoseconds
            }
            let events = waitEvents(forWrite: false)
            let readiness = await loop.wait(for: fd, events: events, deadline: deadline, idle: idle,
                                            idleSince: idle ? idleSince : 0)
            budget.renew()
            switch readiness {
            case .ready:
                drained = false
                continue
            case .shutdown: return .close
            case .timedOut: return idle ? .close : .failed(HTTPParseError(.timeout))
            }
        }
    }

    static let continueLine = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
    /// Why a `CONNECT` gets 501: this server is no proxy.
    static let connectRefusal = "CONNECT is not supported"

    /// Calls the responder in a task of its own on this loop. A task keeps the memory its deepest call chain
    /// needed until it ends, so a handler run in the connection's long-lived task would leave its frames' slabs
    /// (several KB after one request through the Web stack) to every idle keep-alive connection. The short task
    /// also answers JSON faster; BENCHMARKS.md has both measurements.
    private func respond(to request: HTTPRequest) async -> HTTPResponse {
        let responder = acceptor.responder, info = self.info
        return await Task(executorPreference: loop) { await responder.respond(to: request, connection: info) }.value
    }

    /// The access line for a request refused before it was parsed: no method or path can be trusted.
    /// A request the server answered itself, before any route: the status, why and from which peer: the socket's,
    /// which behind a proxy is the proxy (whether a forwarded address can be trusted is the application's to say,
    /// and its routes were not reached). Found by an audit: the line named none of them.
    func logRefusal(_ status: HTTPStatus, reason: String) {
        let logger = acceptor.logger
        guard logger.logLevel <= .info else { return }
        logger.info("refused \(status.code) from \(LogEscaping.escape(info.remoteAddress)): \(reason)")
    }

    func logAccess(_ request: HTTPRequest, status: HTTPStatus, started: UInt64) {
        let logger = acceptor.logger
        guard acceptor.accessLog, logger.logLevel <= .info else { return }
        let micros = (MonotonicClock.now() - started) / 1000
        let ms = "\(micros / 1000).\(String(micros % 1000 / 100))"
        let method = LogEscaping.value(request.method.rawValue), path = LogEscaping.path(request.path)
        logger.info("\(method) \(path) \(status.code) \(ms)ms")
    }
}
