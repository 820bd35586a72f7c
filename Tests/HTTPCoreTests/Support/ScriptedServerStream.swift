import Glibc

/// The byte stream a `ScriptedServer` connection speaks over: plain socket or TLS session.
protocol ScriptedServerStream {
    /// Up to 16 KiB; empty at end of stream or on error.
    func read() -> [UInt8]
    func write(_ bytes: [UInt8])
    /// Ends the stream cleanly (TLS close_notify) before the socket is closed.
    func finish()
}

struct ScriptedPlainStream: ScriptedServerStream {
    let fd: Int32

    func read() -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return count > 0 ? Array(buffer[0..<count]) : []
    }

    func write(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { return }
            offset += count
        }
    }

    func finish() { shutdown(fd, Int32(SHUT_WR)) }
}
