import Glibc

/// A loopback listener whose accept queue is full and never drained, so further connection attempts hang
/// in SYN_SENT: the way to provoke a connect timeout without leaving the machine.
final class FullBacklogListener {
    let port: UInt16
    private let listener: Int32
    private let fillers: [Int32]

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 0) == 0 else { throw ScriptedServerError("backlog listener: \(errno)") }
        let port = try ScriptedServer.localPort(of: listener)
        self.port = port
        address.sin_port = port.bigEndian
        var fillers: [Int32] = []
        for _ in 0..<4 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            fillers.append(fd)
        }
        self.fillers = fillers
        usleep(50_000)
    }

    deinit {
        fillers.forEach { close($0) }
        close(listener)
    }
}
