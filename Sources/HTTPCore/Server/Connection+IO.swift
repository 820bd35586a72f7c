import IOCore
import CryptoCore
import CLinux
import Glibc

extension Connection {
    /// What one non-blocking read or write did.
    enum IOOutcome {
        /// This many bytes were read (at least one) or written.
        case transferred(Int)
        /// The socket, or TLS, is not ready: wait for `waitEvents`.
        case wouldBlock
        /// The peer closed the connection, or it failed: it is of no further use.
        case closed
    }

    /// One non-blocking read (plain or TLS).
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> IOOutcome {
        if let tls {
            switch tls.read(into: buffer) {
            case .done(let count): return count > 0 ? .transferred(count) : .wouldBlock
            case .wantRead: tlsWantsWrite = false; return .wouldBlock
            case .wantWrite: tlsWantsWrite = true; return .wouldBlock
            case .closed, .failed: return .closed
            }
        }
        while true {
            let count = read(fd, buffer.baseAddress, buffer.count)
            if count > 0 { return .transferred(count) }
            if count == 0 { return .closed }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .closed
            }
        }
    }

    /// One non-blocking read into `input`, of no more than this turn's budget allows; a read that fills what was
    /// asked for leaves the socket not `drained`. With the budget spent, it first lets the loop poll its sockets
    /// and serve the connections they wake, and goes on with a new budget in the next iteration: the socket is
    /// not drained, so that read needs no new edge.
    func receiveWithinBudget() async -> IOOutcome {
        if budget.isSpent {
            await loop.yieldToSockets()
            budget.renew()
        }
        input.reserveTail(minimum: Self.minimumRead)
        let tail = input.writableTail
        let allowed = UnsafeMutableRawBufferPointer(rebasing: tail[0..<min(tail.count, budget.remaining)])
        let outcome = receive(into: allowed)
        if case .transferred(let count) = outcome {
            input.didWrite(count)
            budget.spend(count)
            drained = count < allowed.count
        }
        return outcome
    }

    /// One non-blocking write (plain or TLS).
    func transmit(_ bytes: UnsafeRawBufferPointer) -> IOOutcome {
        if let tls {
            switch tls.write(bytes) {
            case .done(let count): return .transferred(count)
            case .wantRead: tlsWantsWrite = false; return .wouldBlock
            case .wantWrite: tlsWantsWrite = true; return .wouldBlock
            case .closed, .failed: return .closed
            }
        }
        while true {
            let count = Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            if count >= 0 { return .transferred(count) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .closed
            }
        }
    }

    /// The epoll events to wait for: TLS may need the opposite direction of the operation (RFC 8446 key updates).
    func waitEvents(forWrite: Bool) -> UInt32 {
        if tls != nil { return tlsWantsWrite ? EPOLLOUT.rawValue : EPOLLIN.rawValue }
        return forWrite ? EPOLLOUT.rawValue : EPOLLIN.rawValue
    }

    /// Writes all of `output`, parking while the peer does not read; false if the connection is gone or stalled
    /// past `writeTimeout`.
    func flush() async -> Bool {
        holdingOutput = false
        guard open else { return false }
        var offset = 0
        defer { output.removeAll(keepingCapacity: output.capacity <= acceptor.limits.writeBufferHighWater * 2) }
        while offset < output.count {
            let result = output.withUnsafeBytes { transmit(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
            switch result {
            case .transferred(let count):
                offset += count
            case .closed:
                open = false
                return false
            case .wouldBlock:
                let deadline = MonotonicClock.now() + acceptor.limits.writeTimeout.nanoseconds
                let readiness = await loop.wait(for: fd, events: waitEvents(forWrite: true), deadline: deadline,
                                                idle: false)
                guard readiness == .ready else {
                    open = false
                    return false
                }
            }
        }
        return true
    }

    /// Writes `output` then `body` without copying the body: `writev(2)` for plain sockets, two TLS writes
    /// otherwise.
    func flush(appending body: [UInt8]) async -> Bool {
        holdingOutput = false
        guard tls == nil else {
            guard await flush() else { return false }
            output = body
            return await flush()
        }
        guard open else { return false }
        var offset = 0
        let total = output.count + body.count
        defer { output.removeAll(keepingCapacity: true) }
        while offset < total {
            let written = output.withUnsafeBytes { head in
                body.withUnsafeBytes { tail in
                    Self.writev(fd, head, tail, skipping: offset)
                }
            }
            if written >= 0 {
                offset += written
                continue
            }
            guard errno == EAGAIN || errno == EWOULDBLOCK else {
                open = false
                return false
            }
            let deadline = MonotonicClock.now() + acceptor.limits.writeTimeout.nanoseconds
            guard await loop.wait(for: fd, events: EPOLLOUT.rawValue, deadline: deadline, idle: false) == .ready else {
                open = false
                return false
            }
        }
        return true
    }

    /// One `writev` of `head` and `tail`, minus the first `skipping` bytes; -1 with `errno` on failure.
    static func writev(_ fd: Int32, _ head: UnsafeRawBufferPointer, _ tail: UnsafeRawBufferPointer,
                       skipping: Int) -> Int {
        var vectors: [iovec] = []
        if skipping < head.count, let base = head.baseAddress {
            vectors.append(iovec(iov_base: UnsafeMutableRawPointer(mutating: base + skipping),
                                 iov_len: head.count - skipping))
        }
        let tailSkip = max(0, skipping - head.count)
        if let base = tail.baseAddress, tailSkip < tail.count {
            vectors.append(iovec(iov_base: UnsafeMutableRawPointer(mutating: base + tailSkip),
                                 iov_len: tail.count - tailSkip))
        }
        while true {
            let result = vectors.withUnsafeBufferPointer { Glibc.writev(fd, $0.baseAddress, Int32($0.count)) }
            if result < 0 && errno == EINTR { continue }
            return result
        }
    }

    /// After a final response while the client may still be sending: half-close, then read and discard for a
    /// short while, so unread input does not make the kernel reset the connection before the client has read
    /// the response (RFC 9112 §9.6). Over TLS, close_notify goes first, and what follows is read as it comes,
    /// undecrypted: the session is over.
    func lingeringClose() async {
        guard open else { return }
        if let tls {
            tls.shutdown()
            self.tls = nil
        }
        shutdown(fd, Int32(SHUT_WR))
        let deadline = MonotonicClock.now() + Self.lingerTimeout
        var discarded = 0
        while discarded < Self.lingerMaxBytes {
            input.consume(input.readableCount)
            switch await receiveWithinBudget() {
            case .transferred(let count):
                discarded += count
            case .closed:
                return
            case .wouldBlock:
                guard await loop.wait(for: fd, events: EPOLLIN.rawValue, deadline: deadline, idle: false) == .ready
                else { return }
                budget.renew()
            }
        }
    }

    /// Why a plain HTTP request to the TLS port is refused.
    static let plainHTTPRequestRefusal = "This port serves HTTPS: a plain HTTP request was sent to it; use https://"

    /// Answers a plain HTTP request to the TLS port with a 400 in the project's error shape (`writeError`), in plain
    /// HTTP, before the connection closes, as nginx answers it (found by a review: the client got a reset and no
    /// word of why). Sent once, without waiting: a socket that cannot take it now gets nothing.
    private func answerPlainHTTPRequest() {
        logRefusal(.badRequest, reason: "a plain HTTP request on the TLS port")
        writeError(.badRequest, reason: Self.plainHTTPRequestRefusal, version: .http1_1, overPlainHTTP: true)
        output.withUnsafeBytes { bytes in
            _ = Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        }
        output.removeAll()
    }

    static let lingerTimeout: UInt64 = 2_000_000_000
    static let lingerMaxBytes = 4 * 1_048_576

    /// Completes the TLS handshake within `headerTimeout`. Its waits are idle ones: a connection that has not
    /// finished its handshake has no request under way, so a shutdown drains it as an idle keep-alive connection
    /// (found by a review: a silent TLS connection held every shutdown for 10 s).
    func handshake() async -> Bool {
        guard let tls else { return true }
        let deadline = MonotonicClock.now() + acceptor.limits.headerTimeout.nanoseconds
        while true {
            switch tls.handshake() {
            case .done: return true
            case .wantRead: tlsWantsWrite = false
            case .wantWrite: tlsWantsWrite = true
            case .closed: return false
            case .failed(let error) where error.isPlainHTTPRequest:
                answerPlainHTTPRequest()
                return false
            case .failed(let error):
                acceptor.logger.debug("TLS handshake failed", metadata: ["error": "\(error)"])
                return false
            }
            let readiness = await loop.wait(for: fd, events: waitEvents(forWrite: false), deadline: deadline,
                                            idle: true)
            guard readiness == .ready else { return false }
        }
    }
}
