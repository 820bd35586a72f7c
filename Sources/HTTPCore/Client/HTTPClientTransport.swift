/// A byte stream to one server: plain TCP or TLS over TCP.
protocol HTTPClientTransport: AnyObject {
    /// Writes all of `bytes`, or throws (`readTimeout` at `deadline`).
    func write(_ bytes: [UInt8], until deadline: ContinuousClock.Instant) throws
    /// Reads at most `maxCount` bytes; an empty result means the peer closed the stream.
    func read(maxCount: Int, until deadline: ContinuousClock.Instant) throws -> [UInt8]
}

extension HTTPClientSocket: HTTPClientTransport {
    func write(_ bytes: [UInt8], until deadline: ContinuousClock.Instant) throws {
        try sendAll(bytes, until: deadline)
    }

    func read(maxCount: Int, until deadline: ContinuousClock.Instant) throws -> [UInt8] {
        try receive(maxCount: maxCount, until: deadline)
    }
}
