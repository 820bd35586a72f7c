import Dispatch
import Glibc
import Synchronization

/// A hostile client for fairness tests: sends the same bytes over and over to the server at `port`, as fast as it
/// takes them, on a queue of its own, until stopped, its time is up, or the server closes.
///
/// The socket is set up so that the server's reads keep coming back full, as from a fast client across a network:
/// segments of 4 KiB (`TCP_MAXSEG`) sent without delay (`TCP_NODELAY`) from a large send buffer. With loopback's
/// 64 KiB segments the server's reads came back short every few hundred KiB, and each short read sends it back to
/// `epoll_wait` with or without a read budget, so the flood would not show what the budget changes.
final class Flood: Sendable {
    private let client: RawClient
    private let sent = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)
    private let running = Atomic<Bool>(true)
    private let ended = Arrival()

    /// Bytes the server has taken so far.
    var bytesSent: Int { sent.load(ordering: .relaxed) }

    /// Still sending: not stopped, not out of time, the server still reading.
    var isRunning: Bool { running.load(ordering: .relaxed) }

    init(port: Int, pattern: [UInt8], for duration: Duration) throws {
        client = try RawClient(port: port) { fd in
            var segment: Int32 = 4096, one: Int32 = 1, buffer: Int32 = 4 * 1_048_576
            let size = socklen_t(MemoryLayout<Int32>.size)
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_MAXSEG, &segment, size)
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, size)
            setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buffer, size)
        }
        DispatchQueue(label: "flood").async { [self] in
            let end = ContinuousClock.now + duration
            while !stopping.load(ordering: .relaxed), ContinuousClock.now < end, sendOnce(pattern) {}
            running.store(false, ordering: .relaxed)
            ended.signal()
        }
    }

    /// One send of as much of `pattern` as the socket takes, after waiting up to 50 ms for room; false once the
    /// connection is gone.
    private func sendOnce(_ pattern: [UInt8]) -> Bool {
        var entry = pollfd(fd: client.fd, events: Int16(POLLOUT), revents: 0)
        guard poll(&entry, 1, 50) > 0 else { return true }
        guard entry.revents & Int16(POLLOUT) != 0 else { return false }
        let count = pattern.withUnsafeBytes {
            Glibc.send(client.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
        }
        if count > 0 { sent.add(count, ordering: .relaxed) }
        return count > 0 || errno == EAGAIN || errno == EINTR
    }

    /// Waits, polling, until `count` bytes have been sent; false if the flood ended or `limit` passed first.
    func waitUntilSent(_ count: Int, within limit: Duration) async -> Bool {
        let end = ContinuousClock.now + limit
        while bytesSent < count {
            guard isRunning, ContinuousClock.now < end else { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    /// Stops sending and waits until the queue has.
    func stop() async {
        stopping.store(true, ordering: .relaxed)
        await ended.wait()
    }
}
