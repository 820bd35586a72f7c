import CryptoCore
import Glibc

/// TLS over an `HTTPClientSocket`: OpenSSL on a non-blocking descriptor, waiting with `poll(2)` whenever
/// it wants to read or write.
final class HTTPClientTLSTransport: HTTPClientTransport {
    private let socket: HTTPClientSocket
    private let connection: TLSClientConnection

    /// Performs the handshake, verifying the chain and `host` (RFC 6125), before `deadline`.
    init(socket: HTTPClientSocket, host: String, isIPAddress: Bool, tls: HTTPClientTLS,
         deadline: ContinuousClock.Instant) throws {
        self.socket = socket
        do {
            let context = try tls.context.get()
            connection = try TLSClientConnection(context: context, descriptor: socket.descriptor,
                                                 host: host, isIPAddress: isIPAddress)
            while true {
                switch try connection.handshake() {
                case .done: return
                case .wantRead: try socket.wait(for: Int16(POLLIN), until: deadline, timeout: .connectTimeout)
                case .wantWrite: try socket.wait(for: Int16(POLLOUT), until: deadline, timeout: .connectTimeout)
                case .closed: throw HTTPClientError(.tlsHandshakeFailed, "connection closed during the handshake")
                }
            }
        } catch let error as TLSClientError {
            throw HTTPClientError(.tlsHandshakeFailed, error.description)
        }
    }

    func write(_ bytes: [UInt8], until deadline: ContinuousClock.Instant) throws {
        var offset = 0
        while offset < bytes.count {
            let progress = try mapped { try bytes.withUnsafeBytes { try connection.write(UnsafeRawBufferPointer(rebasing: $0[offset...])) } }
            switch progress {
            case .done(let count): offset += count
            case .wantRead: try socket.wait(for: Int16(POLLIN), until: deadline, timeout: .readTimeout)
            case .wantWrite: try socket.wait(for: Int16(POLLOUT), until: deadline, timeout: .readTimeout)
            case .closed: throw HTTPClientError(.connectionClosed, "TLS connection closed while sending")
            }
        }
    }

    func read(maxCount: Int, until deadline: ContinuousClock.Instant) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: maxCount)
        while true {
            let progress = try mapped { try buffer.withUnsafeMutableBytes { try connection.read(into: $0) } }
            switch progress {
            case .done(let count): return Array(buffer[0..<count])
            case .wantRead: try socket.wait(for: Int16(POLLIN), until: deadline, timeout: .readTimeout)
            case .wantWrite: try socket.wait(for: Int16(POLLOUT), until: deadline, timeout: .readTimeout)
            case .closed: return []
            }
        }
    }

    private func mapped<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as TLSClientError {
            throw HTTPClientError(.connectionClosed, error.description)
        }
    }
}
