import Glibc

/// The kernel's range of ports for outgoing connections (`ip_local_port_range`), and ports below it: a port a
/// listener binds some time after it was found free must come from below, or any outgoing connection on the machine
/// may take it meanwhile.
package enum EphemeralPorts {
    /// The lowest port `candidateBelow()` gives.
    package static let lowestCandidate = 20_000

    /// The first port of the range, 32768 when it cannot be read.
    package static func rangeStart() -> Int {
        let fd = open("/proc/sys/net/ipv4/ip_local_port_range", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return 32768 }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return 32768 }
        let digits = bytes[..<count].drop { $0 == 0x20 || $0 == 0x09 }.prefix { (0x30...0x39).contains($0) }
        return Int(String(decoding: digits, as: UTF8.self)) ?? 32768
    }

    /// A random port from `lowestCandidate` up to the range (at least 1,000 ports wide), to try binding.
    package static func candidateBelow() -> Int {
        Int.random(in: lowestCandidate..<max(rangeStart(), lowestCandidate + 1000))
    }
}
