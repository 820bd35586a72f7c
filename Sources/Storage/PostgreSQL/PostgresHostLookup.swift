import Glibc
import IOCore
import Synchronization

/// The addresses of a connection URI's host names, looked up on a worker thread, never on an event loop: libpq's
/// `PQconnectStart` calls `getaddrinfo(3)` itself, blocking, for a `host` given without `hostaddr`, and a slow or
/// silent resolver then froze the loop that also serves HTTP, `/health` included, for the resolver's whole timeout
/// (found by a review: 3 to 15 s, during a failover that changed DNS records). The connection gets the address as
/// `hostaddr`, beside `host`, which libpq then uses only to authenticate and to verify the server's certificate
/// (libpq, "Parameter Key Words": `hostaddr`, "in applications with time constraints").
package struct PostgresHostLookup: Sendable {
    /// The blocking lookup of a name and port into numeric addresses, in `getaddrinfo`'s order.
    package typealias Lookup = @Sendable (_ host: String, _ port: String) throws -> [String]

    private let lookup: Lookup

    /// - Parameter lookup: the blocking call, run on the worker (tests give a slow one).
    package init(lookup: @escaping Lookup = PostgresHostLookup.system) {
        self.lookup = lookup
    }

    /// One thread for every lookup of the process's PostgreSQL connections.
    private static let worker = BlockingWorker()

    /// Whether `parameters` (one host's) name a host that libpq would look up: a name, not an IP address, not a
    /// socket folder (`/run/postgresql`), and no `hostaddr` given.
    static func needsLookup(_ parameters: [String: String]) -> Bool {
        guard parameters["hostaddr"] == nil, let host = parameters["host"], !host.isEmpty, !host.hasPrefix("/"),
              !host.hasPrefix("@") else { return false }
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) != 1 && inet_pton(AF_INET6, host, &v6) != 1
    }

    /// The numeric addresses of `host` for `port`, before `deadline` (monotonic ns) on `loop`.
    /// - Throws: `PostgresError` (`.unavailable`) naming the host when the name does not resolve or the deadline
    ///   passes first (a lookup that outlives it ends on the worker, unanswered).
    func addresses(of host: String, port: String, deadline: UInt64, loop: EventLoop) async throws -> [String] {
        let lookup = self.lookup
        let answered = Mutex(false)
        return try await withCheckedThrowingContinuation { continuation in
            let finish: @Sendable (Result<[String], any Error>) -> Void = { result in
                guard answered.withLock({ done in defer { done = true }; return !done }) else { return }
                continuation.resume(with: result)
            }
            let timer = loop.schedule(at: deadline) {
                finish(.failure(PostgresError.connection("cannot connect to \(host):\(port): looking up the name "
                    + "took longer than the time left")))
            }
            let submitted = Self.worker.submit {
                let result = Result { try lookup(host, port) }
                loop.cancel(timer)
                finish(result)
            }
            if !submitted {
                loop.cancel(timer)
                finish(.failure(PostgresError.connection("cannot connect to \(host):\(port): the resolver has stopped")))
            }
        }
    }

    /// `getaddrinfo(3)` for a stream socket of any family, as libpq asks, its answers as numeric text.
    package static let system: Lookup = { host, port in
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, port, &hints, &result)
        guard status == 0 else {
            throw PostgresError.connection("cannot connect to \(host):\(port): could not translate host name "
                + "(\(String(cString: gai_strerror(status))))")
        }
        defer { freeaddrinfo(result) }
        var addresses: [String] = []
        var entry = result
        while let info = entry {
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(info.pointee.ai_addr, info.pointee.ai_addrlen, &text, socklen_t(text.count), nil, 0,
                           NI_NUMERICHOST) == 0 {
                let address = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if !addresses.contains(address) { addresses.append(address) }
            }
            entry = info.pointee.ai_next
        }
        guard !addresses.isEmpty else {
            throw PostgresError.connection("cannot connect to \(host):\(port): the name has no address")
        }
        return addresses
    }
}
