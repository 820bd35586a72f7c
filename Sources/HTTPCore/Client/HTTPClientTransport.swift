/// A byte stream to one server (plain TCP or TLS over TCP) whose waits park on an event loop.
protocol HTTPClientTransport: AnyObject {
    /// Writes all of `bytes`, or throws (`readTimeout` at `deadline`, monotonic ns).
    func write(_ bytes: [UInt8], until deadline: UInt64) async throws
    /// Appends at most `maxCount` bytes to `buffer`; false, with nothing appended, when the peer closed the stream.
    func read(appendingTo buffer: inout [UInt8], maxCount: Int, until deadline: UInt64) async throws -> Bool
    /// From now on, only the peer's own end of the stream is an end (TLS: its close_notify; TCP has no more to tell),
    /// so that a body read until the connection closes is complete only then (RFC 9112 §9.8).
    func requireCleanEnd()
}
